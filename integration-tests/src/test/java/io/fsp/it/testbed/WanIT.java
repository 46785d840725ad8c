package io.fsp.it.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/bench-wan} in short: one direct {@code fsp get} (a single data connection) over a long fat link of the
 * delay line, 100 ms and 200 Mbit/s, with Debian's default TCP buffer limits in both namespaces; the file arrives
 * byte-identical and the whole client process moves it at a good share of the link's rate (a client that fixes its
 * receive buffer, and so turns off the kernel's autotuning, falls far short where {@code net.core.rmem_max} is
 * Debian's 208 KiB). Needs root and TAP devices; skipped otherwise.
 */
class WanIT {
    private static final double RTT_MS = 100;
    private static final double RATE_MBIT = 200;
    private static final long BYTES = 128L << 20;
    /**
     * Of the link's rate, over the whole process (JVM start without the launcher's options, about 2 s of
     * handshakes and TCP's ramp-up, exit): 50 % on this machine while it was shared with builds; a fixed 4 MiB
     * receive buffer allows at most 416 KiB per round trip on a host with Debian's {@code net.core.rmem_max},
     * 16 % of this link.
     */
    private static final double MIN_SHARE = 0.30;

    @TempDir
    Path work;

    @Test
    void directGetFillsMostOfALongFatLink() throws Exception {
        String missing = DelayLine.missingRequirement();
        assumeTrue(missing == null, () -> "wide-area test skipped: " + missing);
        String classPath = System.getProperty("fsp.it.classpath", "");
        if (classPath.isBlank() || classPath.startsWith("${")) {
            classPath = System.getProperty("java.class.path");
        }
        String prefix;
        try (WanRig rig = WanRig.start(WanRig.Programs.classPath(classPath), work, 0, RTT_MS, RATE_MBIT, 50,
                "4096 131072 6291456", "4096 16384 4194304")) {
            prefix = rig.line.prefix();
            Path source = rig.dataFile("big.bin", BYTES);
            rig.startServer(2121, false);
            Path dest = work.resolve("received.bin");
            WanRig.Run run = rig.get(2121, "big.bin", dest, "--include-direct");
            double mbit = BYTES * 8 / run.wallSeconds() / 1e6;
            System.out.printf(Locale.ROOT, "wan: direct fsp get of %d MiB at %.0f ms, %.0f Mbit/s: %.2f s (fsp's own"
                    + " clock %.2f s), %.1f Mbit/s, %.1f %% of the link, client CPU %.2f s%n", BYTES >> 20, RTT_MS,
                    RATE_MBIT, run.wallSeconds(), run.ownSeconds(), mbit, mbit / RATE_MBIT * 100, run.cpuSeconds());
            assertEquals(-1, Files.mismatch(source, dest), "received file differs from the original");
            assertTrue(mbit >= RATE_MBIT * MIN_SHARE, String.format(Locale.ROOT, "direct fsp get moved %.1f Mbit/s"
                    + " (expected: >= %.0f %% of %.0f Mbit/s)%n%s", mbit, MIN_SHARE * 100, RATE_MBIT, run.output()));
        }
        assertTrue(DelayLine.existingNamespaces().stream().noneMatch(n -> n.startsWith(prefix)),
                "namespaces left behind: " + DelayLine.existingNamespaces());
    }
}
