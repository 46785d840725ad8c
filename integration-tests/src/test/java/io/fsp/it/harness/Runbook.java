package io.fsp.it.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An operator's runbook (Markdown under {@code docs/runbooks/}) as a test runs it: its {@code ```sh} blocks, each
 * named by the {@code <!-- step: NAME -->} comment before it, each run by bash with the runbook's variables set,
 * exactly as an operator would paste them. A block without a name is an error, so none can be left out unnoticed.
 */
public final class Runbook {
    private static final Pattern STEP = Pattern.compile("<!-- step: ([a-z0-9-]+) -->");

    private final Path file;
    private final Map<String, String> steps;
    private final Set<String> run = new LinkedHashSet<>();

    private Runbook(Path file, Map<String, String> steps) {
        this.file = file;
        this.steps = steps;
    }

    /** The runbook {@code name} of this repository ({@code docs/runbooks/NAME.md}). */
    public static Runbook load(String name) throws IOException {
        Path here = Path.of("").toAbsolutePath();
        // the integration tests run in integration-tests/; an IDE may run them from the repository's root
        Path file = Files.isDirectory(here.resolve("docs")) ? here.resolve("docs/runbooks/" + name + ".md")
                : here.resolveSibling("docs").resolve("runbooks/" + name + ".md");
        Map<String, String> steps = new LinkedHashMap<>();
        String named = null;
        StringBuilder block = null;
        int n = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            n++;
            Matcher m = STEP.matcher(line.strip());
            if (block == null && m.matches()) {
                named = m.group(1);
            } else if (block == null && line.equals("```sh")) {
                if (named == null || steps.containsKey(named)) {
                    throw new IllegalStateException(file + ":" + n + ": an sh block needs a <!-- step: NAME --> of"
                            + " its own before it" + (named == null ? "" : " (" + named + " is taken)"));
                }
                block = new StringBuilder();
            } else if (block != null && line.equals("```")) {
                steps.put(named, block.toString());
                named = null;
                block = null;
            } else if (block != null) {
                block.append(line).append('\n');
            }
        }
        return new Runbook(file, steps);
    }

    /** The names of the steps, in the runbook's order. */
    public List<String> steps() {
        return List.copyOf(steps.keySet());
    }

    /** The steps no {@link #run} has run yet, in order. */
    public List<String> notRun() {
        return steps().stream().filter(s -> !run.contains(s)).toList();
    }

    /** What one step did: its exit code and everything it printed. */
    public record Outcome(String step, int exitCode, String output) {
        @Override
        public String toString() {
            return "step exited " + exitCode + ":\n" + step + "--- output ---\n" + output;
        }
    }

    /** Runs step {@code name} with {@code variables} in its environment, in {@code workDir}. */
    public Outcome run(String name, Map<String, String> variables, Path workDir, long timeoutSeconds) throws Exception {
        String step = steps.get(name);
        if (step == null) {
            throw new IllegalArgumentException(file + " has no step " + name + " (it has " + steps() + ")");
        }
        run.add(name);
        ProcessBuilder pb = new ProcessBuilder("bash", "-euo", "pipefail", "-c", step).directory(workDir.toFile())
                .redirectErrorStream(true);
        pb.environment().putAll(variables);
        Path log = Files.createTempFile(workDir, "runbook-" + name + "-", ".log");
        pb.redirectOutput(log.toFile());
        Process p = pb.start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            return new Outcome(name + ":\n" + step, -1, Files.readString(log) + "\n[killed after " + timeoutSeconds + " s]");
        }
        return new Outcome(name + ":\n" + step, p.exitValue(), Files.readString(log));
    }

    @Override
    public String toString() {
        return file + " (steps " + steps() + ")";
    }
}
