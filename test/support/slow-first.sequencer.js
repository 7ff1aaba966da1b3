/**
 * Runs the suite's slowest specs first. Jest orders specs by their last run's duration, and without one
 * (every CI run is a fresh clone) by file size; a short file that runs models on whole clips was then
 * started last and kept one worker busy alone for minutes. A spec whose docblock says `@slow` (real
 * models on whole clips, the engine behind the API) now goes ahead of the rest; Jest's order holds
 * within each group.
 */
const { readFileSync } = require('node:fs');
const TestSequencer = require('@jest/test-sequencer').default;

const SLOW_PRAGMA = /^\s*\*\s*@slow\b/m;

function isSlow(path) {
  const head = readFileSync(path, 'utf8').slice(0, 2000);
  const docblock = head.match(/^\s*\/\*\*[\s\S]*?\*\//);
  return docblock !== null && SLOW_PRAGMA.test(docblock[0]);
}

class SlowFirstSequencer extends TestSequencer {
  sort(tests) {
    const ordered = super.sort(tests);
    const slow = ordered.filter((test) => isSlow(test.path));
    return [...slow, ...ordered.filter((test) => !slow.includes(test))];
  }
}

module.exports = SlowFirstSequencer;
