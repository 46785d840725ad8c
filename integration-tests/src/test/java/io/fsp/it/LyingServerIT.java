package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.collect.CollectOptions;
import io.fsp.client.collect.Collector;
import io.fsp.client.control.ControlException;
import io.fsp.client.verify.VerificationMode;
import io.fsp.extension.FspOptions;
import io.fsp.testkit.control.ScriptedServer;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TokenKey;
import io.fsp.token.TokenScope;
import io.fsp.token.TransferId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server that lies about the blocks of a file: the client must not call a file complete and verified unless the
 * announced blocks cover every byte of it exactly once. The server is a script here (a real TLS control channel,
 * nothing else): announcing too few blocks needs no block data at all.
 */
class LyingServerIT {
    @TempDir
    Path dir;

    private static final String FILE = "151 FILE 0 1048576 1700000000000 big.bin";

    @Test
    void aFileWithoutBlocksIsNotReportedComplete() throws Exception {
        // "blocks=0": by a count of sequence numbers, the transfer was complete before it began
        Throwable e = lie(List.of(FILE));
        assertTrue(e.getMessage().contains("announced blocks for 0 of the 1048576 bytes of big.bin"), e.getMessage());
    }

    @Test
    void overlappingBlocksAreRefused() throws Exception {
        Throwable e = lie(List.of(FILE,
                "151 BLK 0 origin 0 0 524288 sha256:" + "00".repeat(32),
                "151 BLK 1 origin 0 262144 524288 sha256:" + "00".repeat(32)));
        assertTrue(e.getMessage().contains("overlap another block"), e.getMessage());
    }

    /** A block that carries small files may run on into the next files, never past the last one. */
    @Test
    void aBlockRunningPastTheLastFileIsRefused() throws Exception {
        Throwable e = lie(List.of(FILE, "151 BLK 0 origin 0 0 1048577 sha256:" + "00".repeat(32)));
        assertTrue(e.getMessage().contains("BLK 0: file 0 @0+1048577 (expected: inside the announced files: bytes"
                + " 0+1048577 from file 0: run past the last file by 1 bytes"), e.getMessage());
    }

    /** A name that would leave the destination is refused as its line is read: no path is made of it. */
    @Test
    void aFileNameThatLeavesTheDestinationIsRefusedAsItIsRead() throws Exception {
        Throwable e = lie("directory", List.of("151 DIR sub", "151 FILE 0 10 1700000000000 sub%2F..%2F..%2Fescaped.bin"));
        assertTrue(e.getMessage().contains("announcement 'FILE 0 10 1700000000000 sub%2F..%2F..%2Fescaped.bin': FILE name"
                + " \"sub/../../escaped.bin\" is not normalised (expected: no empty, . or .. segments)"), e.getMessage());
        try (Stream<Path> made = Files.walk(dir)) {
            assertEquals(List.of(), made.filter(p -> !Files.isDirectory(p)).toList(), "no file created, inside or beside");
        }
    }

    /**
     * A relay index announced twice would replace the first relay's connection without closing it; a server that
     * repeats it, or names more relays than a transfer may have, is refused at that line.
     */
    @Test
    void aRelayAnnouncedTwiceOrTooManyRelaysAreRefused() throws Exception {
        String token = "151 TOKEN " + CapabilityToken.issue(TokenKey.random(), TransferId.parse("0000000000000001"),
                Instant.now().plusSeconds(60), TokenScope.ALL).toText();
        String relay = " 127.0.0.1:9 AB:" + "00:".repeat(30) + "CD";
        Throwable twice = lie(List.of(token, "151 RELAY 0" + relay, "151 RELAY 0" + relay, FILE));
        assertTrue(twice.getMessage().contains("RELAY 0: announced twice"), twice.getMessage());
        List<String> many = new ArrayList<>(List.of(token));
        for (int i = 0; i <= 64; i++) {
            many.add("151 RELAY " + i + relay);
        }
        many.add(FILE);
        Throwable tooMany = lie(many);
        assertTrue(tooMany.getMessage().contains("RELAY 64: more than 64 relays"), tooMany.getMessage());
    }

    /** Runs a get against a server that says {@code lines} after FRET, then 226; what the get threw. */
    private Throwable lie(List<String> lines) throws Exception {
        return lie("file", lines);
    }

    /** The same for a transfer of {@code kind} (file or directory). */
    private Throwable lie(String kind, List<String> lines) throws Exception {
        long blocks = lines.stream().filter(l -> l.startsWith("151 BLK")).count();
        try (ScriptedServer server = ScriptedServer.start(command -> answer(command, kind, blocks, lines))) {
            Path dest = dir.resolve("big.bin");
            CollectOptions options = new CollectOptions("127.0.0.1", server.port(), "alice", "secret".toCharArray(),
                    "alice@127.0.0.1:" + server.port(), "/big.bin", dest, PinnedTrustManager.of(Set.of(server.fingerprint())),
                    FspOptions.NONE, false, 1, VerificationMode.FIVER, Duration.ofSeconds(5), Duration.ofSeconds(5));
            return assertThrows(ControlException.class, () -> new Collector(options).run());
        }
    }

    /** The liar's replies to {@code command}: it logs anyone in, and FRET announces {@code lines}. */
    private static List<String> answer(String command, String kind, long blocks, List<String> lines) {
        return switch (command.split(" ")[0]) {
            case "USER" -> List.of("331 password");
            case "PASS" -> List.of("230 in");
            case "PBSZ", "PROT", "FSPO" -> List.of("200 ok");
            case "FRET" -> {
                List<String> replies = new ArrayList<>(List.of("150 FSP transfer 0000000000000001",
                        "151 FSP 0000000000000001 kind=" + kind + " files=1 directories=0 bytes=1048576 blocks=" + blocks
                                + " block-size=524288 compression=off cipher=none checksum=crc32c digest=sha256",
                        "151 KEY none"));
                replies.addAll(lines);
                replies.add("226 every block placed");
                yield replies;
            }
            default -> List.of("502 not here");
        };
    }
}
