package io.fsp.it.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An operator's runbook (Markdown under {@code docs/runbooks/}) as a test runs it: its {@code ```sh} blocks, in
 * order, each run by bash with the runbook's variables set, exactly as an operator would paste them.
 */
public final class Runbook {
    private final Path file;
    private final List<String> steps;

    private Runbook(Path file, List<String> steps) {
        this.file = file;
        this.steps = steps;
    }

    /** The runbook {@code name} of this repository ({@code docs/runbooks/NAME.md}). */
    public static Runbook load(String name) throws IOException {
        Path here = Path.of("").toAbsolutePath();
        // the integration tests run in integration-tests/; an IDE may run them from the repository's root
        Path file = Files.isDirectory(here.resolve("docs")) ? here.resolve("docs/runbooks/" + name + ".md")
                : here.resolveSibling("docs").resolve("runbooks/" + name + ".md");
        List<String> steps = new ArrayList<>();
        StringBuilder block = null;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (block == null && line.equals("```sh")) {
                block = new StringBuilder();
            } else if (block != null && line.equals("```")) {
                steps.add(block.toString());
                block = null;
            } else if (block != null) {
                block.append(line).append('\n');
            }
        }
        return new Runbook(file, List.copyOf(steps));
    }

    public List<String> steps() {
        return steps;
    }

    /** What one step did: its exit code and everything it printed. */
    public record Outcome(String step, int exitCode, String output) {
        @Override
        public String toString() {
            return "step exited " + exitCode + ":\n" + step + "--- output ---\n" + output;
        }
    }

    /** Runs step {@code i} (from 0) with {@code variables} in its environment, in {@code workDir}. */
    public Outcome run(int i, Map<String, String> variables, Path workDir, long timeoutSeconds) throws Exception {
        String step = steps.get(i);
        ProcessBuilder pb = new ProcessBuilder("bash", "-euo", "pipefail", "-c", step).directory(workDir.toFile())
                .redirectErrorStream(true);
        pb.environment().putAll(variables);
        Path log = Files.createTempFile(workDir, "runbook-step" + i + "-", ".log");
        pb.redirectOutput(log.toFile());
        Process p = pb.start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            return new Outcome(step, -1, Files.readString(log) + "\n[killed after " + timeoutSeconds + " s]");
        }
        return new Outcome(step, p.exitValue(), Files.readString(log));
    }

    @Override
    public String toString() {
        return file + " (" + steps.size() + " steps)";
    }
}
