#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { ApiError } from './api-client.js';
import { auditCommand } from './audit.commands.js';
import { clustersCommand } from './clusters.commands.js';
import { completionCommand } from './completion.commands.js';
import { DEFAULT_API_URL } from './context.js';
import { endpointsCommand } from './endpoints.commands.js';
import { fleetCommand } from './fleet.commands.js';
import { jobHistoryCommands } from './job-history.commands.js';
import { jobsCommand } from './jobs.commands.js';
import { keysCommand } from './keys.commands.js';
import { logsCommand } from './logs.commands.js';
import { podsCommand } from './pods.commands.js';
import { quotaCommand } from './quota.commands.js';
import { templatesCommand } from './templates.commands.js';
import { usageCommand } from './usage.commands.js';
import { volumesCommand } from './volumes.commands.js';

/**
 * `gpucp`: the user's command line for a deployment, over the public REST API only (management v2 and the
 * serverless job routes) with an API key. Exit codes: 0 done, 1 refused or failed (the API's problem detail is
 * printed), 2 usage (a missing key, an unknown option).
 */
const program = new Command('gpucp')
  .description(
    'pods, clusters, serverless endpoints, jobs, logs, usage, the audit trail, GPU quotas and the fleet of a GPU control plane',
  )
  .option('--api-url <url>', `the gateway (env GPUCP_API_URL; default ${DEFAULT_API_URL})`)
  .option('--api-key <key>', 'an API key cpk_… (env GPUCP_API_KEY)')
  .option('--json', 'print JSON (no progress output)')
  .option('-q, --quiet', 'no progress output')
  .exitOverride();

podsCommand(program);
clustersCommand(program);
endpointsCommand(program);
jobsCommand(program);
jobHistoryCommands(program);
logsCommand(program);
usageCommand(program);
auditCommand(program);
quotaCommand(program);
fleetCommand(program);
templatesCommand(program);
volumesCommand(program);
keysCommand(program);
// Last: it reads the command tree as registered so far.
completionCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander printed the help or the usage problem already.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else {
    process.stderr.write(`gpucp: ${(error as Error).message}\n`);
    process.exitCode = error instanceof ApiError && error.status === 2 ? 2 : 1;
  }
}
