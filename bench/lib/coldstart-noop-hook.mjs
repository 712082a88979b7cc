// The cold-start section's loader-hook row: a loader hook that changes nothing, registered as any
// ES module instrumentation registers its hook. What it adds is what Node charges for running
// module hooks at all (on Node 20, a thread of their own and a round trip per import).
import { register } from 'node:module';

register('data:text/javascript,export const resolve = (s, c, next) => next(s, c);');
