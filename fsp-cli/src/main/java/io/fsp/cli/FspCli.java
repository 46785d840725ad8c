package io.fsp.cli;

import io.fsp.crypto.NativeCrypto;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code fsp}: the FSP command line. */
@Command(name = "fsp", mixinStandardHelpOptions = true, version = "fsp 0.1.0",
        description = "Fast Send Protocol client.")
public final class FspCli implements Runnable {
    /**
     * The subcommands in the order help lists them. Picocli builds a command's model from its annotations by
     * reflection, which costs a new process tens of milliseconds per command: {@link #commandLine} builds only the
     * one a run names.
     */
    private static final Map<String, Supplier<Object>> SUBCOMMANDS = new LinkedHashMap<>();

    static {
        SUBCOMMANDS.put("get", GetCommand::new);
        SUBCOMMANDS.put("evacuate", EvacuateCommand::new);
        SUBCOMMANDS.put("collect", CollectCommand::new);
        SUBCOMMANDS.put("release", ReleaseCommand::new);
        SUBCOMMANDS.put("transfer", TransferCommand::new);
        SUBCOMMANDS.put("keygen", KeygenCommand::new);
        SUBCOMMANDS.put("nodes", NodesCommand::new);
        SUBCOMMANDS.put("demo", DemoCommand::new);
        SUBCOMMANDS.put("status", StatusCommand::new);
        SUBCOMMANDS.put("wait", WaitCommand::new);
        SUBCOMMANDS.put("cancel", CancelCommand::new);
        SUBCOMMANDS.put("agent", AgentCommand::new);
    }

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /**
     * The command line for {@code args}: with the subcommand that {@code args} starts with, or with every
     * subcommand when it starts with none (help, an option, a mistyped name, which picocli then answers as usual).
     */
    public static CommandLine commandLine(String... args) {
        CommandLine cli = new CommandLine(new FspCli()).setExitCodeExceptionMapper(new ExitCodes());
        Supplier<Object> named = args.length > 0 ? SUBCOMMANDS.get(args[0]) : null;
        if (named != null) {
            cli.addSubcommand(args[0], named.get());
        } else {
            SUBCOMMANDS.forEach((name, command) -> cli.addSubcommand(name, command.get()));
        }
        return cli;
    }

    public static void main(String[] args) {
        args = java.util.Arrays.stream(args).filter(a -> !a.equals(Launcher.NO_AGENT)).toArray(String[]::new);
        if (java.util.Arrays.asList(args).contains(Launcher.DETACH)) {
            System.err.println("fsp: " + Launcher.DETACH + " runs a transfer in the agent, which is off here"
                    + " (FSP_AGENT=off, --no-agent or agent = off)");
            System.exit(ExitCodes.USAGE);
        }
        configureLogging();
        NativeCrypto.loadInBackground(); // beside argument parsing and class loading, before the first TLS handshake
        System.exit(commandLine(args).execute(args));
    }

    /** Warnings and errors on standard error, the level from -Dfsp.log; before the first logger is made. */
    static void configureLogging() {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", System.getProperty("fsp.log", "warn"));
        // The logging backend by name (SLF4J would otherwise open every jar of the class path to look for one),
        // without SLF4J's note that it was named.
        System.setProperty("slf4j.provider", System.getProperty("slf4j.provider", "org.slf4j.simple.SimpleServiceProvider"));
        System.setProperty("slf4j.internal.verbosity", System.getProperty("slf4j.internal.verbosity", "WARN"));
    }
}
