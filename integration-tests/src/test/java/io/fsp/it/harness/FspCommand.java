package io.fsp.it.harness;

import io.fsp.cli.FspCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

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

    /**
     * Runs {@code fsp ARGS} as a process of its own ({@link #process}) with {@code env} added, its output in files
     * under {@code dir}, waiting up to 120 s; prints what the operator sees, for the test's report.
     */
    public static Result runProcess(Path dir, Map<String, String> env, List<String> args)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile(dir, "fsp", ".out");
        Path err = Files.createTempFile(dir, "fsp", ".err");
        ProcessBuilder pb = process(args).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("fsp " + String.join(" ", args) + " did not end");
        }
        Result r = new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        System.out.println("$ fsp " + String.join(" ", args) + "\n" + r);
        return r;
    }

    /**
     * {@code fsp ARGS} as a process of its own, to start: as bin/fsp runs it, through this test JVM's agent
     * ({@link #agentProcess}); with {@code -Dfsp.it.agent=off} (the failsafe execution "without-agent"),
     * {@link #inProcess}.
     */
    public static ProcessBuilder process(List<String> args) {
        return "off".equals(System.getProperty("fsp.it.agent")) ? inProcess(args) : agentProcess(SHARED_AGENT, args);
    }

    /** {@code java -cp … io.fsp.cli.FspCli ARGS}, with this build's class path: the command in a JVM of its own. */
    public static ProcessBuilder inProcess(List<String> args) {
        return program(FspCli.class.getName(), args);
    }

    /** {@code java -cp … MAIN ARGS} with this build's class path: another program ({@code fsp-server invite}). */
    public static ProcessBuilder program(String mainClass, List<String> args) {
        List<String> command = new ArrayList<>(List.of(java(), "-cp", classPath(), mainClass));
        command.addAll(args);
        return new ProcessBuilder(command);
    }

    /** Runs {@code program(mainClass, args)} to its end (60 s at most): what it printed and returned. */
    public static Result runProgram(String mainClass, List<String> args) throws java.io.IOException, InterruptedException {
        Process p = program(mainClass, args).start();
        p.getOutputStream().close();
        java.util.concurrent.CompletableFuture<byte[]> err = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return p.getErrorStream().readAllBytes();
            } catch (java.io.IOException e) {
                return new byte[0];
            }
        });
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new java.io.IOException(mainClass + " " + args + ": did not end within 60 s");
        }
        return new Result(p.exitValue(), out, new String(err.join(), java.nio.charset.StandardCharsets.UTF_8));
    }

    /** The agent the tests of this JVM share (it exits 30 s after their last command). */
    private static final Path SHARED_AGENT = Path.of("/tmp", "fsp-it-agent-" + ProcessHandle.current().pid());

    /** The native launcher the build made (fsp-cli/target/fsp-launcher). */
    public static final Path NATIVE_LAUNCHER = Path.of("..", "fsp-cli", "target", "fsp-launcher").toAbsolutePath().normalize();

    /**
     * {@code fsp ARGS} as bin/fsp runs it with the agent on: the native launcher, with the environment bin/launch gives
     * it (the class path, the Java launcher's and the agent's command lines), the agent's directory {@code agentDir}.
     */
    public static ProcessBuilder agentProcess(Path agentDir, List<String> args) {
        List<String> command = new ArrayList<>(List.of(NATIVE_LAUNCHER.toString()));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command);
        String opens = String.join("\n", "--add-opens", "java.base/java.nio=ALL-UNNAMED", "--add-opens",
                "java.base/jdk.internal.misc=ALL-UNNAMED", "-Dio.netty.tryReflectionSetAccessible=true",
                "-XX:TieredStopAtLevel=1");
        pb.environment().put("FSP_AGENT_DIR", agentDir.toString());
        pb.environment().put("FSP_AGENT_CLASSPATH", classPath());
        pb.environment().put("FSP_AGENT_JVM", opens + "\n-Xms32m");
        pb.environment().put("FSP_INPROCESS_JVM", opens + "\n-XX:+UseSerialGC");
        pb.environment().put("FSP_JAVA_LAUNCHER", String.join("\n", java(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", classPath(), "io.fsp.cli.Launcher"));
        pb.environment().put("FSP_CONFIG", "none");
        pb.environment().put("FSP_AGENT_IDLE", "30s");
        pb.environment().remove("FSP_AGENT");
        pb.environment().remove("XDG_RUNTIME_DIR");
        return pb;
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static String classPath() {
        String classPath = System.getProperty("fsp.it.classpath", "");
        return classPath.isBlank() || classPath.startsWith("${") ? System.getProperty("java.class.path") : classPath;
    }
}
