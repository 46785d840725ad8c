package io.fsp.it.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** A distribution archive that {@code mvn package} of fsp-dist made (by default {@code fsp.it.distribution}), unpacked. */
public final class Distribution {
    private Distribution() {
    }

    /** Unpacks the archive into {@code into} with {@code tar}, as an operator would; its one top directory. */
    public static Path unpack(Path into) throws IOException, InterruptedException {
        return unpack(System.getProperty("fsp.it.distribution"), into);
    }

    /** Unpacks {@code archive} (either of fsp-dist's) into {@code into}; its one top directory. */
    public static Path unpack(String archive, Path into) throws IOException, InterruptedException {
        assertTrue(archive != null && Files.isRegularFile(Path.of(archive)),
                "the distribution archive (mvn package of fsp-dist): " + archive);
        Files.createDirectories(into);
        Process tar = new ProcessBuilder("tar", "-xzf", archive, "-C", into.toString()).inheritIO().start();
        assertTrue(tar.waitFor(60, TimeUnit.SECONDS), "tar did not end");
        assertEquals(0, tar.exitValue(), "tar");
        try (Stream<Path> top = Files.list(into)) {
            List<Path> dirs = top.toList();
            assertEquals(1, dirs.size(), "one top directory: " + dirs);
            return dirs.get(0);
        }
    }
}
