export * from './controls.module';
export * from './control.commands';
export * from './control.decider';
export * from './controls.projection';
