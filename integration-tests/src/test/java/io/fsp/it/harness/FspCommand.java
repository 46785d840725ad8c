package io.fsp.it.harness;

import io.fsp.cli.FspCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code fsp} command line as the tests run it: in this JVM ({@link #run}, its output captured), or as a
 * process of its own ({@link #process}, to be killed as a crash would end it).
 */
public final class FspCommand {
    private FspCommand() {
    }

    /** What one run printed and returned. */
    public record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- out ---\n" + out + "\n--- err ---\n" + err;
        }
    }

    /** Runs {@code fsp ARGS} in this JVM. */
    public static Result run(List<String> args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        String[] argv = args.toArray(String[]::new);
        int exit = FspCli.commandLine(argv).setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err)).execute(argv);
        return new Result(exit, out.toString(), err.toString());
    }

    /** {@code java -cp … io.fsp.cli.FspCli ARGS}, with this build's class path, to start. */
    public static ProcessBuilder process(List<String> args) {
        String classPath = System.getProperty("fsp.it.classpath", "");
        if (classPath.isBlank() || classPath.startsWith("${")) {
            classPath = System.getProperty("java.class.path");
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classPath, FspCli.class.getName()));
        command.addAll(args);
        return new ProcessBuilder(command);
    }
}
