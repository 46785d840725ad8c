package io.fsp.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code fsp agent start|status|stop}: this user's resident client ({@link Launcher} runs these itself). */
@Command(name = "agent", mixinStandardHelpOptions = true, usageHelpAutoWidth = true,
        description = {"The agent: one warm process per user (and build, network and mount namespace, umask) that runs"
                + " fsp commands, so that each costs little more than a small launcher. A command starts it when none"
                + " answers; it exits after agent-idle (client.conf, $FSP_AGENT_IDLE; default " + Launcher.DEFAULT_IDLE
                + ") with no command to run.",
                "Off for one command: --no-agent; for all: FSP_AGENT=off or agent = off in client.conf."},
        exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {"0:done (stop: also when none was running)",
                "1:status: no agent runs; start: it could not be started (the message says why)", ExitCodes.USAGE_HELP})
final class AgentCommand implements Callable<Integer> {
    @Parameters(paramLabel = "start|status|stop", description = "start one if none runs, and print its status; print"
            + " its pid, uptime, commands running, RSS and socket; stop it (running commands are cancelled, their"
            + " journals kept for a rerun).")
    String verb;

    @Override
    public Integer call() {
        return Launcher.agent(verb, Invocation.current().environment());
    }
}
