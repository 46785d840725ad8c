package io.fsp.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** One run of {@code fsp ARGS} in this JVM, as {@code main} runs it (the one exit code mapper), output captured. */
record FspRun(int exit, String out, String err) {
    static FspRun fsp(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = FspCli.commandLine(args);
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return new FspRun(cli.execute(args), out.toString(), err.toString());
    }
}
