package io.fsp.it.testbed;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Running the system commands a namespace testbed is built with (ip, tc, sysctl) from Java. */
final class Testbed {
    private Testbed() {
    }

    static boolean isRoot() {
        try {
            return output(List.of("id", "-u"), 10).strip().equals("0");
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** Whether the command runs and exits 0 (its output discarded). */
    static boolean runs(String... command) {
        try {
            output(List.of(command), 30);
            return true;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** Runs the command; throws with its output if it fails. */
    static void run(String... command) throws IOException, InterruptedException {
        output(List.of(command), 30);
    }

    /** Runs the command and returns its standard output and error; throws with them if it fails or times out. */
    static String output(List<String> command, long timeoutSeconds) throws IOException, InterruptedException {
        Path capture = Files.createTempFile("testbed-command", ".out");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(capture.toFile())
                    .start();
            p.getOutputStream().close();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + ": no exit in " + timeoutSeconds + " s:\n"
                        + Files.readString(capture));
            }
            String text = Files.readString(capture);
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + ": exit " + p.exitValue() + "\n" + text);
            }
            return text;
        } finally {
            Files.deleteIfExists(capture);
        }
    }

    /** Deletes a file tree if it exists; what cannot be deleted stays (best effort, for teardown). */
    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort
        }
    }
}
