/** What `#des/controls` publishes to the other libraries, the apps and the tests; the rest is its own. */
export { ChangeControl } from './control.commands';
export { controlsFeature } from './controls.module';
