import { Injectable } from '@nestjs/common';

/**
 * The control loop's one clock: every time it decides with or records (ticks, scaling events, back-offs, the
 * catalog cache) is read here, so a test can set the time and the code has a single notion of "now".
 */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
