/**
 * Imported first by every entry point that reaches native code: on a Node.js older than agentkit supports, importing
 * agentkit fails here with one line that says so, before better-sqlite3's native module is loaded (on Node 20 it would
 * crash the process with no word of why).
 */
import { nodeSupportProblem } from './node-support.js';

const problem = nodeSupportProblem();
if (problem) throw new Error(problem);
