/** Child process entry: read a LoadConfig from argv[2], run it, print the LoadResult as JSON on stdout. */
import { runLoad, type LoadConfig } from './load.js';

const config = JSON.parse(process.argv[2] ?? '{}') as LoadConfig;
process.stdout.write(JSON.stringify(await runLoad(config)));
