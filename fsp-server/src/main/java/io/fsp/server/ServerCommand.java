package io.fsp.server;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code fsp-server}: starts the FTP/FTPS server with the FSP extension. */
@Command(name = "fsp-server", mixinStandardHelpOptions = true, version = "fsp-server 0.1.0",
        description = "FTP/FTPS server with the FSP striped-transfer extension.")
public final class ServerCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("fsp-server: not implemented yet");
        return 1;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new ServerCommand()).execute(args));
    }
}
