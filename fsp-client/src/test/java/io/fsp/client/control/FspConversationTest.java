package io.fsp.client.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.extension.Announcement;
import io.fsp.extension.ByteRange;
import io.fsp.extension.ExtensionCodec;
import io.fsp.extension.FgetRequest;
import io.fsp.extension.HeldRanges;
import io.fsp.extension.FspOption;
import io.fsp.extension.FspOptions;
import io.fsp.extension.TransferOptions;
import io.fsp.testkit.control.ScriptedServer;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.token.TransferId;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The client's side of the FSP extension against a server that plays a script on a real loopback TLS connection. */
class FspConversationTest {
    private static final Duration REPLY = Duration.ofSeconds(5);
    private static final String FSP = ExtensionCodec.format(new Announcement.Transfer(new TransferId(7), false, 1, 0, 10, 1,
            TransferOptions.DEFAULTS.announced()));
    private static final FspOptions OPTIONS = FspOptions.NONE.with(FspOption.USE_RELAYS, true)
            .with(FspOption.INCLUDE_DIRECT, false).with(FspOption.BLOCK_SIZE, 64 * 1024);

    /** A server that answers each command by its verb, and stays silent on any other. */
    private static Function<String, List<String>> answers(Map<String, List<String>> byVerb) {
        return line -> byVerb.getOrDefault(line.split(" ")[0], List.of());
    }

    @Test
    void optionsPrioritiesAndARetrieveReadUntilThe226() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(answers(Map.of(
                "FSPO", List.of("200 FSP " + TransferOptions.DEFAULTS.describe()),
                "FPRI", List.of("200 first"),
                "FHAV", List.of("200 held"),
                "FRET", List.of("150 FSP transfer 0000000000000007", "151 " + FSP, "151 KEY none", "226 every block placed"))));
             ControlChannel control = connect(server)) {
            FspConversation fsp = new FspConversation(control, "", REPLY);
            fsp.options(OPTIONS);
            fsp.prioritize(List.of("b c.bin", "a.bin"));
            assertTrue(fsp.claim(new HeldRanges("ab".repeat(32), 0, List.of(new ByteRange(0, 10)))));
            fsp.retrieve("/data");
            List<String> lines = new ArrayList<>();
            assertEquals(FspConversation.End.COMPLETE, fsp.announcements(lines::add, FspConversation.NO_DEADLINE));
            assertEquals(List.of(FSP, "KEY none"), lines, "each 151 line as read, without the code");
            assertEquals(List.of("FSPO use-relays=on include-direct=off block-size=65536", "FPRI b%20c.bin", "FPRI a.bin"),
                    server.received().subList(0, 3), "the FSPO line as built, then FPRI in order");
            assertEquals("FRET /data", server.received().get(4));
        }
    }

    /** Pipelined, FSPO's refusal surfaces at the next read, before any later reply is taken. */
    @Test
    void aRefusedPipelinedFspoFailsTheRetrieve() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(answers(Map.of(
                "FSPO", List.of("501 block-size: 64 (expected: 4096..16777216)"),
                "FRET", List.of("150 FSP transfer 0000000000000007", "151 " + FSP, "226 every block placed"))));
             ControlChannel control = connect(server)) {
            FspConversation fsp = new FspConversation(control, "alice@a:2121", REPLY);
            fsp.pipelineOptions(FspOptions.NONE.with(FspOption.BLOCK_SIZE, 65536));
            ControlException e = assertThrows(ControlException.class, () -> fsp.retrieve("/data"));
            assertEquals(501, e.code());
            assertTrue(e.getMessage().startsWith("alice@a:2121: FSPO block-size=65536: server answered 501 block-size: 64"),
                    e.getMessage());
        }
    }

    /** A 5xx at each step is a ControlException with the server's code, naming the command. */
    @Test
    void aRefusalAtEachStepNamesTheCommandAndKeepsTheCode() throws Exception {
        assertEquals(550, refusedAt("FSPO", fsp -> fsp.options(OPTIONS)).code());
        assertEquals(501, refusedAt("FPRI", fsp -> fsp.prioritize(List.of("x"))).code());
        assertEquals(550, refusedAt("FRET", fsp -> fsp.retrieve("/data")).code());
        assertEquals(550, refusedAt("FGET", fsp -> fsp.fget(new FgetRequest(new TransferId(7), List.of(1L)), REPLY)).code());
        assertEquals(550, refusedAt("FCOL", fsp -> fsp.collect("/dest", REPLY)).code());
        ControlException midway = refusedAt("FRET", fsp -> {
            fsp.retrieve("/data");
            fsp.announcements(line -> true, FspConversation.NO_DEADLINE);
        }, List.of("150 FSP transfer 0000000000000007", "151 " + FSP, "451 relays lost"));
        assertEquals(451, midway.code());
        assertTrue(midway.getMessage().startsWith("FRET /data: server answered 451 relays lost"), midway.getMessage());
    }

    private interface Step {
        void run(FspConversation fsp) throws Exception;
    }

    private static ControlException refusedAt(String verb, Step step) throws Exception {
        return refusedAt(verb, step, List.of(verb.equals("FPRI") ? "501 FPRI x: no such file" : "550 " + verb + " refused"));
    }

    private static ControlException refusedAt(String verb, Step step, List<String> reply) throws Exception {
        ScriptedServer[] self = new ScriptedServer[1];
        try (ScriptedServer server = ScriptedServer.start(line -> line.equals("EPSV") ? List.of(self[0].epsv())
                : line.startsWith(verb + " ") ? reply : List.of());
             ControlChannel control = connect(server)) {
            self[0] = server;
            ControlException e = assertThrows(ControlException.class, () -> step.run(new FspConversation(control, "", REPLY)));
            assertTrue(e.getMessage().contains(verb), e.getMessage());
            return e;
        }
    }

    @Test
    void aFhavTheServerDoesNotTakeIsNotAnError() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(answers(Map.of("FHAV", List.of("502 not here"))));
             ControlChannel control = connect(server)) {
            assertFalse(new FspConversation(control, "", REPLY)
                    .claim(new HeldRanges("ab".repeat(32), 0, List.of(new ByteRange(0, 10)))));
        }
    }

    /** A server that says nothing more: the read ends at the deadline, having handed on every line before it. */
    @Test
    void aSilentServerEndsTheReadAtTheDeadline() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(answers(Map.of(
                "FRET", List.of("150 FSP transfer 0000000000000007", "151 " + FSP))));
             ControlChannel control = connect(server)) {
            FspConversation fsp = new FspConversation(control, "", REPLY);
            fsp.retrieve("/data");
            List<String> lines = new ArrayList<>();
            long start = System.nanoTime();
            long deadline = start + Duration.ofMillis(400).toNanos();
            assertEquals(FspConversation.End.DEADLINE, fsp.announcements(lines::add, () -> deadline));
            assertTrue(System.nanoTime() >= deadline, "not before the deadline");
            assertEquals(List.of(FSP), lines);
        }
    }

    /** Silent where a reply is due at once: the reply timeout ends the wait, not the striping silence. */
    @Test
    void aServerSilentAfterFretTimesOut() throws Exception {
        Duration brief = Duration.ofMillis(300);
        try (ScriptedServer server = ScriptedServer.start(line -> List.of());
             ControlChannel control = connect(server)) {
            control.readTimeout(brief);
            FspConversation fsp = new FspConversation(control, "", brief);
            assertThrows(SocketTimeoutException.class, () -> fsp.retrieve("/data"));
            assertEquals(List.of("FRET /data"), server.received());
        }
    }

    /** The reader stops: the rest stays unread and the reply timeout is back. */
    @Test
    void aReaderThatStopsEndsTheRead() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(answers(Map.of(
                "FRET", List.of("150 FSP transfer 0000000000000007", "151 " + FSP, "151 KEY none", "226 done"))));
             ControlChannel control = connect(server)) {
            FspConversation fsp = new FspConversation(control, "", REPLY);
            fsp.retrieve("/data");
            List<String> lines = new ArrayList<>();
            assertEquals(FspConversation.End.STOPPED, fsp.announcements(line -> lines.add(line) && false,
                    FspConversation.NO_DEADLINE));
            assertEquals(List.of(FSP), lines);
        }
    }

    /** A 151 line the codec refuses is a ControlException quoting it, with code 151. */
    @Test
    void aMalformed151IsRefusedQuotingTheLine() throws Exception {
        try (ScriptedServer server = ScriptedServer.start(answers(Map.of(
                "FRET", List.of("150 FSP transfer 0000000000000007", "151 " + FSP, "151 BLK 1 relay:x 0 0 10",
                        "226 done"))));
             ControlChannel control = connect(server)) {
            FspConversation fsp = new FspConversation(control, "", REPLY);
            fsp.retrieve("/data");
            List<Announcement> read = new ArrayList<>();
            ControlException e = assertThrows(ControlException.class, () -> fsp.announcements(line -> read.add(
                    FspConversation.parse(line)), FspConversation.NO_DEADLINE));
            assertEquals(151, e.code());
            assertTrue(e.getMessage().startsWith("announcement 'BLK 1 relay:x 0 0 10': "), e.getMessage());
            assertEquals(1, read.size(), "the lines before it were taken");
        }
    }

    /** FGET: EPSV, the data connection, FGET's 150, and after the blocks its 226. */
    @Test
    void fgetOpensTheDataConnectionAndEndsWithThe226() throws Exception {
        ScriptedServer[] self = new ScriptedServer[1];
        try (ScriptedServer server = ScriptedServer.start(line -> line.equals("EPSV") ? List.of(self[0].epsv())
                : line.startsWith("FGET ") ? List.of("150 sending", ScriptedServer.DATA, "226 sent") : List.of());
             ControlChannel control = connect(server)) {
            self[0] = server;
            FspConversation fsp = new FspConversation(control, "", REPLY);
            try (Socket data = fsp.fget(new FgetRequest(new TransferId(7), List.of(3L, 1L, 4L)), REPLY)) {
                assertEquals(-1, data.getInputStream().read(), "the server sent nothing and closed");
            }
            fsp.fetched();
            assertEquals(List.of("EPSV", "FGET 0000000000000007 3,1,4"), server.received());
        }
    }

    /** A control channel to {@code server}, pinned to its certificate, with {@link #REPLY} for every reply. */
    private static ControlChannel connect(ScriptedServer server) throws java.io.IOException {
        return ControlChannel.connect("127.0.0.1", server.port(), PinnedTrustManager.of(Set.of(server.fingerprint())), REPLY);
    }
}
