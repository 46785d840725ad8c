package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.FspCommand;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import io.fsp.testkit.relay.Fault;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tree of many more files than a process may open: {@code fsp get} as a process of its own, its descriptor
 * limit (soft and hard, so the JVM cannot raise it) far below the number of files, collects the whole tree via
 * three relays, byte for byte, with no temporary name left behind. A client that kept every file open until it
 * was whole failed here with "Too many open files".
 */
class ManyFilesIT {
    private static final int DIRECTORIES = 25;
    private static final int FILES_PER_DIRECTORY = 100;
    /** Below the tree's 2,500 files, above what the JVM, its jars and the connections need. */
    private static final int DESCRIPTOR_LIMIT = 400;

    @TempDir
    static Path dir;
    static StripeRig rig;

    @BeforeAll
    static void start() throws Exception {
        rig = StripeRig.start(dir.resolve("rig"), 64L << 20, new Fault[0], new Fault[0], new Fault[0]);
        Random random = new Random(25);
        Path tree = rig.root().resolve("many");
        for (int d = 0; d < DIRECTORIES; d++) {
            Path sub = Files.createDirectories(tree.resolve("d" + d));
            for (int f = 0; f < FILES_PER_DIRECTORY; f++) {
                byte[] content = new byte[f % 10 == 0 ? 0 : random.nextInt(3000)];
                random.nextBytes(content);
                Files.write(sub.resolve("f" + f), content);
            }
        }
    }

    @AfterAll
    static void stop() {
        if (rig != null) {
            rig.close();
        }
    }

    @Test
    void treeOfManyMoreFilesThanTheDescriptorLimitArrivesWhole() throws Exception {
        Path dest = dir.resolve("out/many");
        Files.createDirectories(dest.getParent());
        ProcessBuilder fspProcess = FspCommand.process(List.of("get", "fsp://" + StripeRig.USER + "@127.0.0.1:" + rig.port()
                + "/many", "-o", dest.toString(), "--trust", rig.server().fingerprint().toString()));
        List<String> fsp = fspProcess.command();
        List<String> command = new ArrayList<>(List.of("bash", "-c",
                "ulimit -n " + DESCRIPTOR_LIMIT + " && exec \"$@\"", "fsp"));
        command.addAll(fsp);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("get.log").toFile());
        pb.environment().putAll(fspProcess.environment()); // with the agent: one of its own, under that limit too
        pb.environment().put("FSP_PASSWORD", StripeRig.PASSWORD);
        Process client = pb.start();
        assertTrue(client.waitFor(180, TimeUnit.SECONDS), "fsp get did not end within 180 s");
        String log = Files.readString(dir.resolve("get.log"));
        assertEquals(0, client.exitValue(), log);
        assertEquals(TreeDigests.of(rig.root().resolve("many")), TreeDigests.of(dest), log);
        try (Stream<Path> all = Files.walk(dest)) {
            assertEquals(List.of(), all.filter(p -> p.getFileName().toString().endsWith(".fsp-part")).toList());
        }
        assertTrue(log.contains("2500 files"), log);
    }
}
