package io.fsp.server;

import io.fsp.config.ConfigException;
import io.fsp.config.Durations;
import io.fsp.join.InviteCode;
import io.fsp.options.SettingOptions;
import io.fsp.program.ExitCode;
import io.fsp.server.config.ServerSettings;
import io.fsp.server.join.Invite;
import io.fsp.server.join.Invites;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fsp-server invite}: issues a one-time code by which a relay joins ({@code fsp-relay join CODE SERVER}),
 * lists the invites, or revokes one. It changes {@code invites} in the state directory, which the running server
 * reads at each JOIN (and logs what it sees change); it opens no socket.
 */
@Command(name = "invite", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Prints a one-time code by which a relay joins this server, and its expiry: the volunteer runs"
                + " 'fsp-relay join CODE THIS-SERVER[:PORT]' on the relay's machine. The code may be read over the phone:"
                + " it is good for one join, until it expires, for " + Invites.MAX_WRONG + " wrong tries at most;"
                + " the state directory keeps only a hash of it.",
                "--list shows the invites, --revoke ID withdraws one."},
        modelTransformer = InviteCommand.StateDirOption.class)
final class InviteCommand implements Callable<Integer> {
    /** {@code --state-dir} alone: where the invites and the joined relays are. */
    static final class StateDirOption implements CommandLine.IModelTransformer {
        @Override
        public CommandLine.Model.CommandSpec transform(CommandLine.Model.CommandSpec spec) {
            return SettingOptions.add(spec, ServerSettings.ALL, "state-dir"::equals);
        }
    }

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    ServerCommand.SettingsOptions settingsOptions;

    @Option(names = "--expires", paramLabel = "DURATION", defaultValue = "1h",
            description = "How long the code is good for, e.g. 30m, 1d (default: ${DEFAULT-VALUE}).")
    String expires;

    @Option(names = "--list", description = "List the invites kept (id, state, expiry) instead of issuing one.")
    boolean list;

    @Option(names = "--revoke", paramLabel = "ID", description = "Revoke the invite ID (the first group of its code).")
    String revoke;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Invites invites;
        try {
            invites = new Invites(settingsOptions.settings(spec.commandLine().getParseResult()).effectiveStateDir());
        } catch (ConfigException e) {
            err.println("fsp-server invite: " + e.getMessage());
            return ExitCode.USAGE;
        }
        Instant now = Instant.now();
        try {
            if (list) {
                out.printf("%-6s %-30s %s%n", "ID", "STATE", "EXPIRES");
                for (Invite i : invites.list()) {
                    out.printf("%-6s %-30s %s%n", i.id(), i.status(now), i.expires());
                }
            } else if (revoke != null) {
                String id = revoke.trim().toUpperCase(java.util.Locale.ROOT);
                Optional<Invite> before = invites.revoke(id);
                if (before.isEmpty()) {
                    err.println("fsp-server invite: no invite " + id + " (fsp-server invite --list shows them)");
                    return ExitCode.FAILURE;
                }
                out.println("invite " + id + (before.get().state() == Invite.State.OPEN ? " revoked"
                        : " was already " + before.get().status(now)));
            } else {
                Duration ttl;
                try {
                    ttl = Durations.parse(expires);
                } catch (IllegalArgumentException e) {
                    err.println("fsp-server invite: --expires: " + e.getMessage());
                    return ExitCode.USAGE;
                }
                if (ttl.isNegative() || ttl.isZero()) {
                    err.println("fsp-server invite: --expires " + expires + " (expected: > 0)");
                    return ExitCode.USAGE;
                }
                InviteCode code = invites.issue(ttl, now);
                out.println(code);
                out.flush();
                err.println("fsp-server invite: invite " + code.id() + ", good for one join until " + now.plus(ttl)
                        + "; on the relay's machine: fsp-relay join " + code + " THIS-SERVER[:PORT]");
            }
        } catch (IOException e) {
            err.println("fsp-server invite: " + invites.path() + ": " + e.getMessage());
            return ExitCode.FAILURE;
        }
        out.flush();
        err.flush();
        return ExitCode.OK;
    }
}
