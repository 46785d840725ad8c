package io.fsp.it.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** System commands a test runs to set up what it needs (mount, losetup, mkfs): their output, or why they failed. */
public final class Commands {
    private Commands() {
    }

    /** Runs {@code command}, waiting up to 60 s; its output (stderr too), or an IOException naming why it failed. */
    public static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out);
        }
        return out;
    }
}
