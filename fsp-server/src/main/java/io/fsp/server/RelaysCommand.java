package io.fsp.server;

import io.fsp.config.ConfigException;
import io.fsp.net.HostPort;
import io.fsp.program.ExitCode;
import io.fsp.server.join.JoinedRelays;
import io.fsp.server.select.RelayEndpoint;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code fsp-server relays list|remove HOST:PORT}: the relays that joined ({@code joined-relays} in the state
 * directory). A running server sees the file change and applies it at once, as a reload applies {@code relay} lines.
 */
@Command(name = "relays", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Lists the relays that joined with 'fsp-relay join' (list), or removes one (remove HOST:PORT):"
                + " a running server stops using it for new transfers at once, and it stays removed across restarts.",
                "Relays of the configuration ('relay' lines) are changed there, then kill -HUP."},
        modelTransformer = InviteCommand.StateDirOption.class)
final class RelaysCommand implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    ServerCommand.SettingsOptions settingsOptions;

    @Parameters(index = "0", paramLabel = "ACTION", description = "list, or remove")
    String action;

    @Parameters(index = "1", arity = "0..1", paramLabel = "HOST:PORT", description = "The relay to remove.")
    String relay;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        JoinedRelays joined;
        try {
            joined = new JoinedRelays(settingsOptions.settings(spec.commandLine().getParseResult()).effectiveStateDir());
        } catch (ConfigException e) {
            err.println("fsp-server relays: " + e.getMessage());
            return ExitCode.USAGE;
        }
        try {
            switch (action) {
                case "list" -> {
                    for (RelayEndpoint r : joined.list()) {
                        out.println(r);
                    }
                }
                case "remove" -> {
                    if (relay == null) {
                        err.println("fsp-server relays remove: which relay? (HOST:PORT, as 'fsp-server relays list' shows)");
                        return ExitCode.USAGE;
                    }
                    String hostPort;
                    try {
                        hostPort = HostPort.parse(relay).toString();
                    } catch (IllegalArgumentException e) {
                        err.println("fsp-server relays remove: " + e.getMessage());
                        return ExitCode.USAGE;
                    }
                    if (!joined.remove(hostPort)) {
                        err.println("fsp-server relays remove: no joined relay at " + hostPort
                                + " (fsp-server relays list shows them)");
                        return ExitCode.FAILURE;
                    }
                    out.println("relay " + hostPort + " removed");
                }
                default -> {
                    err.println("fsp-server relays: " + action + " (expected: list, or remove HOST:PORT)");
                    return ExitCode.USAGE;
                }
            }
        } catch (IOException e) {
            err.println("fsp-server relays: " + joined.path() + ": " + e.getMessage());
            return ExitCode.FAILURE;
        }
        out.flush();
        return ExitCode.OK;
    }
}
