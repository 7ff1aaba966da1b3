/** A process that starts one MediaProcess (`sleep 30`) and prints its pid: media-process.spec.ts kills it. */
import { MediaProcess } from '../../../../src/engine/media/process';

const child = new MediaProcess('/bin/sleep', ['30']);
void child.started.then((pid) => console.log(JSON.stringify({ sleep: pid })));
