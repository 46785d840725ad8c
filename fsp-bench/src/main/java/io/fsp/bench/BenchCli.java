package io.fsp.bench;

import io.fsp.cli.ExitCodes;
import io.fsp.crypto.NativeCrypto;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code fsp-bench}: the benchmarks and the Meridian simulator, kept out of the {@code fsp} command a user runs.
 * The {@code bin/bench-*} scripts call it.
 */
@Command(name = "fsp-bench", mixinStandardHelpOptions = true, version = "fsp-bench 0.1.0",
        description = "FSP benchmarks and the Meridian simulator.",
        subcommands = {BenchStripeCommand.class, BenchRecoveryCommand.class, FiverBenchmark.class, MeridianSimCommand.class})
public final class BenchCli implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", System.getProperty("fsp.log", "warn"));
        NativeCrypto.loadInBackground();
        System.exit(new CommandLine(new BenchCli()).setExitCodeExceptionMapper(new ExitCodes()).execute(args));
    }
}
