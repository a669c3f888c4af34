import { Header } from '@nestjs/common';

/** For handlers whose body is a JSON string (`"Tags updated"`): sent as application/json. */
export const JsonStringBody = () => Header('Content-Type', 'application/json; charset=utf-8');

export const jsonString = (text: string) => JSON.stringify(text);
