import tab from '@bomb.sh/tab/commander';
import type { Command } from 'commander';

/**
 * `gpucp completion bash|zsh|fish|powershell` prints a completion script (@bomb.sh/tab). The script asks
 * `gpucp complete -- <words>` at each Tab, which answers from the commander tree itself (commands, options, choices),
 * so completion never drifts from the commands. Call it after every other command is registered: it reads the tree
 * once, when called.
 */
export function completionCommand(program: Command): void {
  tab(program, { completionCommandName: 'completion' });
  program.commands
    .find((command) => command.name() === 'completion')
    ?.description(
      'print a shell completion script, e.g. gpucp completion bash > /etc/bash_completion.d/gpucp',
    );
}
