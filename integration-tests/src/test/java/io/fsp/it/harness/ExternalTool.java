package io.fsp.it.harness;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real client program (curl, lftp, aria2c, python3) found on the PATH and run as a process.
 * A missing program fails the test with the package to install, never skips it.
 */
public final class ExternalTool {
    private final String executable;
    private final Transcript transcript;

    private ExternalTool(String executable, Transcript transcript) {
        this.executable = executable;
        this.transcript = transcript;
    }

    /** Finds {@code program} on the PATH or fails, naming the Debian package {@code bin/install-test-tools} installs. */
    public static ExternalTool require(String program, String debianPackage, Transcript transcript) {
        return new ExternalTool(find(program).orElseGet(() -> fail(program + " is not installed (Debian package "
                + debianPackage + "): run bin/install-test-tools, which CI runs before the tests")), transcript);
    }

    public static java.util.Optional<String> find(String program) {
        String path = System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, program);
            if (Files.isExecutable(candidate)) {
                return java.util.Optional.of(candidate.toString());
            }
        }
        return java.util.Optional.empty();
    }

    public String executable() {
        return executable;
    }

    /** Runs the program with {@code arguments}, stdout and stderr captured; kills it after {@code timeout}. */
    public Result run(Duration timeout, List<String> arguments) throws IOException, InterruptedException {
        return start(arguments).await(timeout);
    }

    public Result run(Duration timeout, String... arguments) throws IOException, InterruptedException {
        return run(timeout, List.of(arguments));
    }

    /** Starts the program without waiting (to interfere with it while it runs). */
    public Running start(List<String> arguments) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(executable);
        command.addAll(arguments);
        transcript.add("$ " + String.join(" ", command));
        Path out = Files.createTempFile("fsp-it-out-", ".txt");
        Path err = Files.createTempFile("fsp-it-err-", ".txt");
        Process process = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        return new Running(process, command, out, err, transcript);
    }

    /**
     * Starts the program with its stdout as a pipe ({@link Process#getInputStream()}), for output
     * too large to keep (a 1 GiB download hashed on the fly); stderr is captured as usual.
     */
    public Running startStreaming(List<String> arguments) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(executable);
        command.addAll(arguments);
        transcript.add("$ " + String.join(" ", command) + " | (hashed by the test)");
        Path out = Files.createTempFile("fsp-it-out-", ".txt");
        Path err = Files.createTempFile("fsp-it-err-", ".txt");
        Process process = new ProcessBuilder(command)
                .redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        return new Running(process, command, out, err, transcript);
    }

    /** A started program; closing it kills it if it still runs (a test that failed half-way). */
    public static final class Running implements AutoCloseable {
        private final Process process;
        private final List<String> command;
        private final Path out;
        private final Path err;
        private final Transcript transcript;

        Running(Process process, List<String> command, Path out, Path err, Transcript transcript) {
            this.process = process;
            this.command = command;
            this.out = out;
            this.err = err;
            this.transcript = transcript;
        }

        public Process process() {
            return process;
        }

        @Override
        public void close() throws IOException {
            if (process.isAlive()) {
                process.destroyForcibly();
                transcript.add("killed " + String.join(" ", command));
            }
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }

        public Result await(Duration timeout) throws IOException, InterruptedException {
            boolean finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!finished) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
            String stdout = Files.readString(out, StandardCharsets.ISO_8859_1);
            String stderr = Files.readString(err, StandardCharsets.ISO_8859_1);
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
            Result result = new Result(command, finished ? process.exitValue() : -1, !finished, stdout, stderr);
            transcript.add(result.describe());
            return result;
        }
    }

    /** What a run produced. {@code exitCode} is -1 when it timed out. */
    public record Result(List<String> command, int exitCode, boolean timedOut, String stdout, String stderr) {
        public String describe() {
            return (timedOut ? "TIMED OUT" : "exit " + exitCode) + ": " + String.join(" ", command)
                    + "\n--- stdout ---\n" + clip(stdout) + "\n--- stderr ---\n" + clip(stderr);
        }

        /** Fails unless the program exited with 0, showing its output. */
        public Result assertSuccess() {
            if (timedOut || exitCode != 0) {
                fail(describe());
            }
            return this;
        }

        private static String clip(String text) {
            int limit = 20_000;
            return text.length() <= limit ? text : text.substring(0, limit / 2) + "\n[...]\n" + text.substring(text.length() - limit / 2);
        }
    }
}
