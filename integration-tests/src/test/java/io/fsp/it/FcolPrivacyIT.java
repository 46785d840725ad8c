package io.fsp.it;

import static io.fsp.it.FcolRelaysIT.awaitMarker;
import static io.fsp.it.FcolRelaysIT.finalReply;
import static io.fsp.it.FcolRelaysIT.fret;
import static io.fsp.it.FcolRelaysIT.listing;
import static io.fsp.it.FcolRelaysIT.startFcol;
import static io.fsp.it.harness.TwoSites.login;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.control.ControlChannel;
import io.fsp.client.control.Reply;
import io.fsp.it.harness.RelayProcess;
import io.fsp.it.harness.ServerProcess;
import io.fsp.it.harness.TreeDigests;
import io.fsp.it.harness.TwoSites;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An FCOL collection is locked and private (docs/protocol.md §1, "FCOL"): while bob collects into B, carol, another
 * account on the same root, can neither reach the files it writes nor its lock by any FTP command, nor upload or
 * collect into the same path; and another local user who swaps what lies under the collection's temporary name does
 * not get his bytes reported verified. Real processes: server A with two relays (one serving collectors slowly, so
 * that a collection runs for seconds), server B with two users on one root, and a shell run as {@code nobody}.
 */
@Timeout(300)
class FcolPrivacyIT {
    private static final String CAROL = "carol";
    private static final String CAROL_PASSWORD = "carol-secret";
    private static final int SIZE = 32 * 1024 * 1024;

    @TempDir
    Path dir;

    private final List<RelayProcess> relays = new ArrayList<>();
    private TwoSites sites;

    @BeforeEach
    void start() throws Exception {
        sites = TwoSites.prepare(dir);
        StringBuilder confB = new StringBuilder();
        relays.add(RelayProcess.start(dir.resolve("relay0"), sites.key().fingerprint()));
        // 2 MiB/s towards collectors: half the blocks on it, a collection runs for about 8 s
        relays.add(RelayProcess.withFaults(dir.resolve("relay1"), sites.key().fingerprint(), "--fault", "throttle:2097152"));
        for (RelayProcess r : relays) {
            sites.argsA().addAll(List.of("--relay", TwoSites.option(r)));
            confB.append("collect-relay = ").append(TwoSites.option(r)).append('\n');
        }
        Files.writeString(dir.resolve("b.conf"), confB);
        sites.argsB().addAll(List.of("--config", dir.resolve("b.conf").toString(), "--user", CAROL));
        sites.envB().put("FSP_PASSWORD_CAROL", CAROL_PASSWORD);
        sites.start();
        TreeDigests.random(sites.rootA().resolve("big.bin"), SIZE, 41);
    }

    @AfterEach
    void stop() {
        if (sites != null) {
            sites.close();
        }
        relays.forEach(RelayProcess::close);
    }

    /**
     * While bob's collection runs, carol tries every name she can see or guess beside his destination (a local user
     * sees the real ones; FTP listings hide them): each command is refused 553 and his collection completes
     * verified. Her upload into the path he collects, and her own FCOL of it, are refused 450.
     */
    @Test
    void anotherAccountCannotReachOrReplaceACollection() throws Exception {
        try (ControlChannel source = sites.source();
             ControlChannel bob = sites.destination();
             ControlChannel carol = login(sites.b(), CAROL, CAROL_PASSWORD, true)) {
            List<String> lines = fret(source, "/big.bin", "block-size=256k strategy=cyclic");
            startFcol(bob, "/big.bin", lines);
            awaitMarker(bob);

            Set<String> seen = new TreeSet<>();
            try (Stream<Path> s = Files.list(sites.rootB())) {
                for (Path p : s.toList()) {
                    seen.add(p.getFileName().toString());
                    if (Files.isDirectory(p)) {
                        seen.add(p.getFileName() + "/big.bin");
                    }
                }
            }
            System.out.println("names beside the destination while it is collected: " + seen);
            assertTrue(seen.stream().anyMatch(n -> n.startsWith(".big.bin.fsp-part")), "written under a temporary name");
            Set<String> names = new TreeSet<>(seen);
            names.addAll(List.of(".big.bin.fsp-part", ".big.bin.fsp-lock")); // guessed
            for (String name : names) {
                String path = "/" + name;
                for (String command : List.of("DELE " + path, "RNFR " + path, "SIZE " + path, "MDTM " + path,
                        "RMD " + path, "CWD " + path)) {
                    Reply r = carol.command(command);
                    assertEquals(553, r.code(), command + ": " + r);
                }
                for (String verb : List.of("STOR", "APPE", "RETR")) {
                    Reply r = upload(carol, verb + " " + path, "carol's bytes");
                    assertEquals(553, r.code(), verb + " " + path + ": " + r);
                }
            }
            // a rename onto a reserved name: RNFR of a file she owns, then RNTO the partial name
            assertEquals(226, upload(carol, "STOR /carol.txt", "carol's own").code());
            assertEquals(350, carol.command("RNFR /carol.txt").code());
            assertEquals(553, carol.command("RNTO /.big.bin.fsp-part").code(), "no rename onto a partial name");

            Reply stor = upload(carol, "STOR /big.bin", "carol's bytes");
            assertEquals(450, stor.code(), "an upload into a path being collected: " + stor);
            assertTrue(stor.text().contains("being collected"), stor.text());
            Reply second = startFcol(carol, "/big.bin", lines);
            assertEquals(450, second.code(), "a second FCOL into the same path: " + second);
            assertTrue(second.text().contains("being collected"), second.text());

            Reply done = finalReply(bob);
            assertEquals(226, done.code(), done.toString());
            assertEquals(TreeDigests.sha256(sites.rootA().resolve("big.bin")), TreeDigests.sha256(sites.rootB().resolve("big.bin")));
            assertEquals(List.of(sites.rootB().resolve("big.bin"), sites.rootB().resolve("carol.txt")),
                    listing(sites.rootB()).stream().sorted().toList(), "no temporary file, no lock left");
            assertEquals(226, upload(carol, "STOR /big.bin", "carol's bytes").code(), "free once the collection ended");
        }
    }

    /**
     * The root is writable by every local user. As {@code nobody}, a shell swaps what lies under the collection's
     * temporary name for a file of zeros of the same size (or, where that name is a private directory it cannot
     * enter, swaps the directory for its own): B must not answer 226 for bytes it did not verify.
     */
    @Test
    void aFileSwappedUnderTheTemporaryNameIsNotReportedVerified() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(sites.rootB(), PosixFilePermissions.fromString("rwxrwxrwx"));
        String script = """
                cd "$1" || exit 9
                head -c "$2" /dev/zero > forged.bin
                for i in $(seq 100); do
                  for e in .big.bin.fsp-part*; do
                    [ -e "$e" ] || continue
                    if [ -f "$e" ]; then
                      mv -f forged.bin "$e" && echo "swapped the file $e"; exit 0
                    elif [ -d "$e" ]; then
                      cp forged.bin "$e/big.bin" 2>/dev/null && echo "wrote inside $e"
                      mv "$e" "$e.moved" && mkdir "$e" && mv forged.bin "$e/big.bin" && echo "swapped the directory $e"
                      exit 0
                    fi
                  done
                  sleep 0.05
                done
                echo "no temporary name seen"; exit 1
                """;
        try (ControlChannel source = sites.source();
             ControlChannel bob = sites.destination()) {
            List<String> lines = fret(source, "/big.bin", "block-size=256k strategy=cyclic");
            startFcol(bob, "/big.bin", lines);
            awaitMarker(bob);
            Process nobody = new ProcessBuilder("runuser", "-u", "nobody", "--", "sh", "-c", script, "swap",
                    sites.rootB().toString(), Integer.toString(SIZE)).redirectErrorStream(true).start();
            assertTrue(nobody.waitFor(60, TimeUnit.SECONDS));
            String said = new String(nobody.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            System.out.println("nobody: " + said.strip());
            assertEquals(0, nobody.exitValue(), said);
            assertFalse(said.contains("wrote inside"), "another user wrote into the collection's temporary place: " + said);

            Reply r = finalReply(bob);
            System.out.println("B after the swap: " + r);
            Path got = sites.rootB().resolve("big.bin");
            boolean genuine = Files.exists(got)
                    && TreeDigests.sha256(got).equals(TreeDigests.sha256(sites.rootA().resolve("big.bin")));
            assertTrue(r.code() != 226 || genuine, "226 for bytes B did not verify: " + r);
            assertTrue(r.code() != 226, "the swap is noticed: " + r);
            assertFalse(r.text().contains(sites.rootB().toString()), "no real path in a reply: " + r);
        }
    }

    /**
     * B dies (SIGKILL) while it collects: the private directory of the file it was writing is left in bob's root,
     * unreachable by FTP. When B starts again it removes it, and the collection's work directory.
     */
    @Test
    void theLeftoversOfACollectionThatDiedAreSweptAtTheNextStart() throws Exception {
        try (ControlChannel source = sites.source();
             ControlChannel bob = sites.destination()) {
            List<String> lines = fret(source, "/big.bin", "block-size=256k strategy=cyclic");
            startFcol(bob, "/big.bin", lines);
            awaitMarker(bob);
            awaitPartial(sites.rootB());
            sites.b().kill();
        }
        List<Path> left = listing(sites.rootB());
        System.out.println("left by the collection that died: " + left);
        assertTrue(left.stream().anyMatch(p -> p.getFileName().toString().startsWith(".big.bin.fsp-part-")), left.toString());
        Path works = dir.resolve("state-b/fcol");
        assertEquals(1, listing(works).stream().filter(p -> p.getParent().equals(works)).count(), "its work directory");

        try (ServerProcess again = ServerProcess.start(sites.rootB(), sites.argsB(), 1, sites.envB())) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!again.output().contains("temporary director(ies) removed") && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertEquals(List.of(), listing(works), "work directories swept: " + again.output());
            assertEquals(List.of(), listing(sites.rootB()).stream()
                    .filter(p -> p.getFileName().toString().contains(".big.bin.fsp-part")).toList(), "temporary files swept");
            assertTrue(again.output().contains("1 temporary director(ies) removed"), again.output());
        }
    }

    /** Waits until the collection's temporary name is in {@code root}: the marker can come before it is made. */
    private static void awaitPartial(Path root) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (listing(root).stream().noneMatch(p -> p.getFileName().toString().startsWith(".big.bin.fsp-part-"))
                && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
    }

    /** {@code command} with a data connection that sends {@code text} (STOR, APPE) or reads (RETR); its final reply. */
    private static Reply upload(ControlChannel c, String command, String text) throws IOException {
        int port = c.epsv();
        Reply first = c.command(command);
        if (first.code() != 150) {
            return first;
        }
        try (Socket data = c.secureData(c.openData(port, Duration.ofSeconds(10)))) {
            if (!command.startsWith("RETR")) {
                data.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
            } else {
                data.getInputStream().readAllBytes();
            }
        }
        return c.read();
    }
}
