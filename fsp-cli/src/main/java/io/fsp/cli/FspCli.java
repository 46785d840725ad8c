package io.fsp.cli;

import io.fsp.crypto.NativeCrypto;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code fsp}: the FSP command line. Subcommands are added as they are built. */
@Command(name = "fsp", mixinStandardHelpOptions = true, version = "fsp 0.1.0",
        description = "Fast Send Protocol client.",
        subcommands = {GetCommand.class, EvacuateCommand.class, CollectCommand.class, TransferCommand.class, KeygenCommand.class, NodesCommand.class, DemoCommand.class})
public final class FspCli implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", System.getProperty("fsp.log", "warn"));
        NativeCrypto.loadInBackground(); // beside argument parsing and class loading, before the first TLS handshake
        System.exit(new CommandLine(new FspCli()).setExitCodeExceptionMapper(new ExitCodes()).execute(args));
    }
}
