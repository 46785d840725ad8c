package io.fsp.it;

import static io.fsp.it.harness.TwoSites.ALICE;
import static io.fsp.it.harness.TwoSites.ALICE_PASSWORD;
import static io.fsp.it.harness.TwoSites.BOB;
import static io.fsp.it.harness.TwoSites.BOB_PASSWORD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.control.ControlChannel;
import io.fsp.client.control.Reply;
import io.fsp.extension.Announcement;
import io.fsp.it.harness.Fret;
import io.fsp.it.harness.FspCommand;
import io.fsp.it.harness.RelayProcess;
import io.fsp.it.harness.TreeDigests;
import io.fsp.it.harness.TwoSites;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fsp transfer} (docs/protocol.md §1, "FCOL"): two real server processes, A with three relay processes and B
 * without any, allowed to collect from A's ({@code collect-relay}); B collects A's tree from A's relays into bob's
 * root byte for byte, the client seeing only
 * announcements and B's markers. A destination that leads out of bob's root and a tampered announcement stream
 * are refused, with nothing reported verified.
 */
@Timeout(300)
class TransferIT {
    @TempDir
    static Path dir;

    // The processes are the class's; each test starts with B's root empty.
    private static final List<RelayProcess> relays = new ArrayList<>();
    private static TwoSites sites;

    @BeforeAll
    static void start() throws Exception {
        sites = TwoSites.prepare(dir);
        for (int i = 0; i < 3; i++) {
            RelayProcess r = RelayProcess.start(dir.resolve("relay" + i), sites.key().fingerprint());
            relays.add(r);
            sites.argsA().addAll(List.of("--relay", TwoSites.option(r)));
            sites.argsB().addAll(List.of("--collect-relay", TwoSites.option(r))); // B's operator allows A's relays
        }
        sites.start();
    }

    @AfterEach
    void emptySiteB() throws IOException {
        sites.emptyRootB();
    }

    @AfterAll
    static void stop() {
        if (sites != null) {
            sites.close();
        }
        relays.forEach(RelayProcess::close);
    }

    @Test
    void bCollectsATreeFromAsRelaysByteForByte() throws Exception {
        Random random = new Random(5);
        for (int i = 0; i < 40; i++) {
            Path f = sites.rootA().resolve("set/docs/d" + (i % 4) + "/f" + i + ".txt");
            Files.createDirectories(f.getParent());
            TreeDigests.random(f, random.nextInt(30_000), i);
        }
        Files.createDirectories(sites.rootA().resolve("set/empty"));
        TreeDigests.random(sites.rootA().resolve("set/big.bin"), 12 * 1024 * 1024 + 5, 77);

        Result missingParent = transfer("/set", "/incoming/set");
        assertEquals(1, missingParent.exit(), "the destination's parent must exist, as for STOR: " + missingParent);
        assertTrue(missingParent.err().contains("550"), missingParent.toString());

        Result r = transfer("/set", "/incoming", "--replicas", "2", "--block-size", "256k", "--json");
        System.out.println("fsp transfer of 40 small files and 12 MiB: " + r.out().strip());
        assertEquals(0, r.exit(), r.toString());
        assertEquals(TreeDigests.of(sites.rootA().resolve("set")), TreeDigests.of(sites.rootB().resolve("incoming")),
                "byte-identical in bob's root");
        assertTrue(Files.isDirectory(sites.rootB().resolve("incoming/empty")), "empty directories too");
        assertTrue(r.out().contains("\"verified\":true") && r.out().contains("\"files\":41"), r.out());
        assertTrue(r.out().contains("verified on disk (fiver)"), "B's 226 is reported: " + r.out());
        try (Stream<Path> left = Files.walk(sites.rootB())) {
            assertEquals(List.of(), left.filter(p -> p.getFileName().toString().contains("fsp-")).toList(),
                    "no temporary or journal file in bob's root");
        }
        try (Stream<Path> work = Files.list(dir.resolve("state-b/fcol"))) {
            assertEquals(0, work.count(), "the collection's journal is gone from B's state directory");
        }
        assertTrue(sites.b().awaitNoOpenFilesUnder(sites.rootB(), Duration.ofSeconds(10)).isEmpty(), "B holds no file open");

        Result single = transfer("/set/big.bin", "/big-copy.bin");
        assertEquals(0, single.exit(), single.toString());
        assertEquals(TreeDigests.sha256(sites.rootA().resolve("set/big.bin")), TreeDigests.sha256(sites.rootB().resolve("big-copy.bin")),
                "a single file takes the destination's name");
    }

    @Test
    void aDestinationThatLeadsOutOfBobsRootIsRefused() throws Exception {
        TreeDigests.random(sites.rootA().resolve("secret.bin"), 300_000, 3);
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.createSymbolicLink(sites.rootB().resolve("link"), outside);
        Result viaLink = transfer("/secret.bin", "/link/secret.bin");
        assertEquals(1, viaLink.exit(), viaLink.toString());
        assertTrue(viaLink.err().contains("550"), viaLink.toString());
        Result intoLink = transfer("/secret.bin", "/link");
        assertEquals(1, intoLink.exit(), intoLink.toString());
        Result climbing = transfer("/secret.bin", "/../../outside/secret.bin");
        assertEquals(1, climbing.exit(), "/.. stays at bob's root, where there is no directory outside: " + climbing);
        try (Stream<Path> s = Files.list(outside)) {
            assertEquals(0, s.count(), "nothing written outside bob's root");
        }
        Result ok = transfer("/secret.bin", "/../secret.bin");
        assertEquals(0, ok.exit(), ok.toString());
        assertTrue(Files.exists(sites.rootB().resolve("secret.bin")), "/../secret.bin is bob's /secret.bin");
    }

    /** A relay-held block whose announced digest was altered on the way: B reports failure, nothing verified. */
    @Test
    void aTamperedAnnouncementStreamIsReportedAndNothingIsVerified() throws Exception {
        TreeDigests.random(sites.rootA().resolve("data.bin"), 2 * 1024 * 1024, 9);
        try (ControlChannel source = sites.source();
             ControlChannel dest = sites.destination()) {
            ControlChannel.expect(source.command("FSPO use-relays=on include-direct=off block-size=256k"), 200, "FSPO");
            List<String> lines = new ArrayList<>(Fret.read(source, "/data.bin").lines());
            int blk = lines.indexOf(lines.stream().filter(l -> l.startsWith("BLK ")).findFirst().orElseThrow());
            String line = lines.get(blk);
            char last = line.charAt(line.length() - 1);
            lines.set(blk, line.substring(0, line.length() - 1) + (last == '0' ? '1' : '0'));

            // keys and tokens never cross a clear data connection
            ControlChannel.expect(dest.command("PROT C"), 200, "PROT C");
            dest.epsv();
            Reply clear = dest.command("FCOL /data.bin");
            assertEquals(534, clear.code(), clear.toString());
            ControlChannel.expect(dest.command("PROT P"), 200, "PROT P");

            int port = dest.epsv();
            ControlChannel.expect(dest.command("FCOL /data.bin"), 150, "FCOL");
            try (Socket data = dest.secureData(dest.openData(port, Duration.ofSeconds(10)))) {
                OutputStream out = data.getOutputStream();
                out.write((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
            dest.readTimeout(Duration.ofMinutes(2));
            Reply r = dest.read();
            while (r.code() == 112) {
                r = dest.read();
            }
            assertEquals(451, r.code(), r.toString());
            assertTrue(r.text().contains("could not be verified") && r.text().contains("nothing"), r.text());
            try (Stream<Path> left = Files.list(sites.rootB())) {
                assertEquals(List.of(), left.toList(), "no file under its name, no temporary file left");
            }

            // the stream itself malformed: refused with the line named, the session serves on
            port = dest.epsv();
            ControlChannel.expect(dest.command("FCOL /x.bin"), 150, "FCOL");
            try (Socket data = dest.secureData(dest.openData(port, Duration.ofSeconds(10)))) {
                data.getOutputStream().write("KEY none\n".getBytes(StandardCharsets.UTF_8));
            }
            r = dest.read();
            assertEquals(501, r.code(), r.toString());
            assertTrue(r.text().contains("announcement line 1") && r.text().contains("FSP line first"), r.text());
            assertEquals(200, dest.command("NOOP").code());

            // blocks that only the origin holds (no relays): B cannot fetch them, and says so before writing anything
            ControlChannel.expect(source.command("FSPO use-relays=off"), 200, "FSPO");
            Fret origin = Fret.read(source, "/data.bin");
            assertTrue(origin.blocks().stream().anyMatch(b -> b.placement() instanceof Announcement.Placement.Origin),
                    origin.toString());
            lines = origin.lines();
            port = dest.epsv();
            ControlChannel.expect(dest.command("FCOL /data.bin"), 150, "FCOL");
            try (Socket data = dest.secureData(dest.openData(port, Duration.ofSeconds(10)))) {
                data.getOutputStream().write((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
            }
            r = dest.read();
            assertEquals(550, r.code(), r.toString());
            assertTrue(r.text().contains("1 of 1 files are not wholly on relays (data.bin)"), r.text());
            try (Stream<Path> left = Files.list(sites.rootB())) {
                assertEquals(List.of(), left.toList(), "nothing written");
            }
        }
    }

    private record Result(int exit, String out, String err) {
    }

    private Result transfer(String from, String to, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("transfer",
                "fsp://" + ALICE + "@127.0.0.1:" + sites.a().port() + from, "fsp://" + BOB + "@127.0.0.1:" + sites.b().port() + to,
                "--trust", sites.a().certificateFingerprint(), "--trust", sites.b().certificateFingerprint()));
        args.addAll(List.of(more));
        Path out = dir.resolve("transfer.out");
        Path err = dir.resolve("transfer.err");
        ProcessBuilder pb = FspCommand.process(args).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("FSP_PASSWORD", ALICE_PASSWORD);
        pb.environment().put("FSP_DEST_PASSWORD", BOB_PASSWORD);
        Process p = pb.start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "fsp transfer did not end");
        return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
    }
}
