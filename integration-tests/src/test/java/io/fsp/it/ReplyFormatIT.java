package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.ControlConnection;
import io.fsp.it.harness.FtpServerExtension;
import io.fsp.it.harness.Reply;
import io.fsp.it.harness.TestTree;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The exact shape of replies clients parse: multi-line FEAT, HELP, STAT and MLST (RFC 959 §4.2,
 * RFC 2389 §3.2, RFC 3659 §7.2), SYST, and quotes doubled in 257 replies (RFC 959 Appendix II).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ReplyFormatIT {
    @RegisterExtension
    static final FtpServerExtension SERVER = FtpServerExtension.plainLoginAllowed();

    private ControlConnection login() throws Exception {
        return ControlConnection.login(SERVER.server().ipv4(), FtpServerExtension.USER, FtpServerExtension.PASSWORD,
                SERVER.transcript());
    }

    /** A multi-line reply: "ddd-" first, "ddd " last, and every line between starts with a space. */
    private static void assertMultiLine(Reply reply, int code) {
        List<String> lines = reply.lines();
        assertTrue(lines.size() >= 2, () -> "multi-line " + code + ": " + reply);
        assertTrue(lines.get(0).startsWith(code + "-"), reply::text);
        assertTrue(lines.get(lines.size() - 1).startsWith(code + " "), reply::text);
        for (String line : lines.subList(1, lines.size() - 1)) {
            assertTrue(line.startsWith(" "), () -> "inner line starts with a space: \"" + line + "\" in\n" + reply);
        }
    }

    @Test
    void featHelpStatAndSyst() throws Exception {
        try (ControlConnection c = login()) {
            Reply feat = c.send("FEAT").assertCode(211);
            assertMultiLine(feat, 211);
            // RFC 2389: one feature per line, the line is a space and the feature
            assertTrue(feat.lines().contains(" UTF8"), feat::text);
            assertTrue(feat.lines().contains(" REST STREAM"), feat::text);
            assertTrue(feat.lines().stream().anyMatch(l -> l.startsWith(" MLST ") && l.contains("size*")), feat::text);

            Reply help = c.send("HELP").assertCode(214);
            assertTrue(help.text().contains("RETR") && help.text().contains("EPSV"), help::text);
            c.send("HELP RETR").assertCode(214);

            Reply status = c.send("STAT");
            status.assertCode(211);
            assertTrue(status.text().contains(FtpServerExtension.USER), () -> "STAT names the user: " + status);

            assertTrue(c.send("SYST").assertCode(215).text().startsWith("215 UNIX"), "clients look for UNIX");
        }
    }

    @Test
    void statOfPathListsOverControlConnection() throws Exception {
        Path dir = SERVER.tree().dir("stat-dir");
        TestTree.write(dir.resolve("listed.txt"), "x".getBytes(StandardCharsets.US_ASCII));
        try (ControlConnection c = login()) {
            Reply listing = c.send("STAT /stat-dir");
            listing.assertCodeIn(211, 212, 213);
            assertTrue(listing.text().contains("listed.txt"), listing::text);
            c.send("STAT /no-such-dir").assertCodeIn(450, 550);
        }
    }

    @Test
    void mlstFactsLineFormat() throws Exception {
        Path dir = SERVER.tree().dir("mlst");
        TestTree.write(dir.resolve("f.bin"), new byte[1234]);
        try (ControlConnection c = login()) {
            Reply mlst = c.send("MLST /mlst/f.bin").assertCode(250);
            assertEquals(3, mlst.lines().size(), mlst::text);
            String facts = mlst.lines().get(1);
            // RFC 3659 §7.2: " fact=value;fact=value; pathname"
            assertTrue(facts.startsWith(" ") && facts.toLowerCase().contains("size=1234;")
                    && facts.toLowerCase().contains("type=file;") && facts.endsWith(" /mlst/f.bin"), facts);
        }
    }

    @Test
    void quotesInNamesAreDoubledIn257() throws Exception {
        SERVER.tree().dir("quotes");
        try (ControlConnection c = login()) {
            Reply made = c.send("MKD /quotes/say \"hi\"").assertCode(257);
            assertTrue(made.text().contains("\"/quotes/say \"\"hi\"\"\""), made::text);
            c.send("CWD /quotes/say \"hi\"").assertCode(250);
            Reply pwd = c.send("PWD").assertCode(257);
            assertTrue(pwd.text().startsWith("257 \"/quotes/say \"\"hi\"\"\""), pwd::text);
        }
        assertTrue(Files.isDirectory(SERVER.tree().root().resolve("quotes/say \"hi\"")));
    }

    @Test
    void listOfOneFileGivesOneLine() throws Exception {
        Path dir = SERVER.tree().dir("list-one");
        TestTree.write(dir.resolve("only.txt"), "abc".getBytes(StandardCharsets.US_ASCII));
        TestTree.write(dir.resolve("other.txt"), "d".getBytes(StandardCharsets.US_ASCII));
        try (ControlConnection c = login()) {
            try (Socket d = ControlConnection.openData(c.extendedPassive())) {
                c.sendLine("LIST /list-one/only.txt");
                c.readReply().assertCodeIn(125, 150);
                String listing = new String(d.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                List<String> lines = listing.lines().toList();
                assertEquals(1, lines.size(), listing);
                assertTrue(lines.get(0).startsWith("-") && lines.get(0).contains(" 3 ") && lines.get(0).endsWith("only.txt"),
                        listing);
                assertTrue(listing.endsWith("\r\n"), "listing lines end with CRLF");
            }
            c.readReply().assertCode(226);
        }
    }
}
