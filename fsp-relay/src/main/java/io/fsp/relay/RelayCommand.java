package io.fsp.relay;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code fsp-relay}: the relay daemon. */
@Command(name = "fsp-relay", mixinStandardHelpOptions = true, version = "fsp-relay 0.1.0",
        description = "Relay daemon: holds encrypted blocks for striped transfers.")
public final class RelayCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("fsp-relay: not implemented yet");
        return 1;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new RelayCommand()).execute(args));
    }
}
