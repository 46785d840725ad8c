package io.fsp.server.ftp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.FutureTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dispatcher on an {@link EmbeddedChannel}: access rules, ordering of pipelined commands, FEAT and HELP. */
class FtpControlHandlerTest {
    @TempDir
    Path root;
    private EmbeddedChannel ch;

    /** An embedded channel with socket addresses, as the session expects. */
    private static final class SocketLikeChannel extends EmbeddedChannel {
        SocketLikeChannel(FtpServerContext context) {
            super(new FtpRequestDecoder(1024), new FtpReplyEncoder(), new FtpControlHandler(context));
        }

        @Override
        protected SocketAddress localAddress0() {
            return new InetSocketAddress("127.0.0.1", 21);
        }

        @Override
        protected SocketAddress remoteAddress0() {
            return new InetSocketAddress("127.0.0.1", 50000);
        }
    }

    private List<String> start(Map<String, List<String>> settings) throws Exception {
        ch = new SocketLikeChannel(TestContexts.context(root, settings));
        return replies();
    }

    @AfterEach
    void tearDown() {
        if (ch != null) {
            ch.finishAndReleaseAll();
        }
    }

    /** Sends raw bytes, runs what the executor queued, and returns every reply line written since. */
    private List<String> send(String lines) {
        ch.writeInbound(Unpooled.copiedBuffer(lines, StandardCharsets.UTF_8));
        return replies();
    }

    private List<String> replies() {
        for (int i = 0; i < 10; i++) {
            ch.runPendingTasks();
            ch.runScheduledPendingTasks();
        }
        StringBuilder sb = new StringBuilder();
        for (ByteBuf b; (b = ch.readOutbound()) != null; b.release()) {
            sb.append(b.toString(StandardCharsets.UTF_8));
        }
        List<String> lines = new ArrayList<>(List.of(sb.toString().split("\r\n")));
        lines.removeIf(String::isEmpty);
        return lines;
    }

    private static final Map<String, List<String>> PLAIN = Map.of(
            "allow-plain-login", List.of("true"), "login-failure-delay", List.of("0s"));

    @Test
    void greetsWith220() throws Exception {
        assertEquals(List.of("220 FSP FTP server ready"), start(PLAIN));
    }

    @Test
    void answersUnknownVerbWith502() throws Exception {
        start(PLAIN);
        assertTrue(send("XYZZY foo\r\n").get(0).startsWith("502 "));
    }

    @Test
    void refusesFileCommandsBeforeLoginWith530() throws Exception {
        start(PLAIN);
        for (String cmd : List.of("RETR a", "STOR a", "LIST", "CWD /", "PASV", "PWD", "DELE a", "HASH a")) {
            assertTrue(send(cmd + "\r\n").get(0).startsWith("530 "), cmd);
        }
    }

    @Test
    void answersOutOfOrderCommandsWith503() throws Exception {
        start(PLAIN);
        assertTrue(send("PASS secret\r\n").get(0).startsWith("503 "));
        login();
        assertTrue(send("RNTO b\r\n").get(0).startsWith("503 "));
        assertTrue(send("PBSZ 0\r\n").get(0).startsWith("503 "), "PBSZ before AUTH");
        assertTrue(send("PROT P\r\n").get(0).startsWith("503 "), "PROT before AUTH");
    }

    @Test
    void refusesPasswordOnPlainChannelUnlessAllowed() throws Exception {
        start(Map.of());
        assertTrue(send("USER alice\r\n").get(0).startsWith("530 TLS required"));
        assertTrue(send("PASS secret\r\n").get(0).startsWith("503 "));
    }

    @Test
    void answersPipelinedCommandsInOrder() throws Exception {
        start(PLAIN);
        List<String> r = send("USER alice\r\nPASS secret\r\nPWD\r\nXPWD\r\nNOOP\r\n");
        assertEquals(5, r.size(), r.toString());
        assertTrue(r.get(0).startsWith("331 "));
        assertTrue(r.get(1).startsWith("230 "));
        assertEquals("257 \"/\" is the current directory", r.get(2));
        assertEquals("257 \"/\" is the current directory", r.get(3), "XPWD is PWD");
        assertTrue(r.get(4).startsWith("200 "));
    }

    @Test
    void closesWhenCommandsFollowAuthTlsInClear() throws Exception {
        start(Map.of());
        FtpSession session = ch.pipeline().get(FtpControlHandler.class).session();
        // One segment: anyone on the path can append to the clear text before the handshake (CVE-2011-0411).
        List<String> r = send("AUTH TLS\r\nUSER injected\r\nPASS x\r\nPWD");
        assertTrue(r.get(0).startsWith("234 "), r.toString());
        assertFalse(ch.isOpen(), "commands sent in clear behind AUTH TLS must end the connection");
        assertTrue(session.pendingUser().isEmpty(), "the injected USER was executed");
    }

    @Test
    void goesOnWithCommandsBehindARefusedAuth() throws Exception {
        start(PLAIN);
        List<String> r = send("AUTH KERBEROS\r\nNOOP\r\nPWD\r\n");
        assertEquals(3, r.size(), r.toString());
        assertTrue(r.get(0).startsWith("504 "), r.toString());
        assertTrue(r.get(1).startsWith("200 "), r.toString());
        assertTrue(r.get(2).startsWith("530 "), r.toString());
    }

    @Test
    void answersWrongPasswordWith530AndClosesAfterTooManyFailures() throws Exception {
        start(PLAIN);
        for (int i = 0; i < 2; i++) {
            assertTrue(send("USER alice\r\nPASS wrong\r\n").get(1).startsWith("530 Login incorrect"));
            assertTrue(ch.isOpen());
        }
        assertTrue(send("USER alice\r\nPASS wrong\r\n").get(1).startsWith("530 "));
        assertFalse(ch.isOpen(), "third failure closes the connection");
    }

    @Test
    void unknownUserIsIndistinguishableFromWrongPassword() throws Exception {
        start(PLAIN);
        List<String> r = send("USER mallory\r\nPASS x\r\n");
        assertEquals(List.of("331 Password required for mallory", "530 Login incorrect"), r);
    }

    @Test
    void featListsExtensionsAndSelectedHash() throws Exception {
        start(PLAIN);
        List<String> feat = send("FEAT\r\n");
        assertEquals("211-Features:", feat.get(0));
        assertEquals("211 End", feat.get(feat.size() - 1));
        for (String f : List.of(" AUTH TLS", " EPSV", " EPRT", " MDTM", " SIZE", " REST STREAM", " UTF8", " PBSZ", " PROT",
                " MLST type*;size*;modify*;perm*;", " HASH SHA-256*;SHA-512;SHA-1;MD5;CRC32",
                " XCRC", " XMD5", " XSHA1", " XSHA256", " XSHA512", " CKSM ADLER32;CRC32;MD5;SHA1;SHA256;SHA512")) {
            assertTrue(feat.contains(f), f + " in " + feat);
        }
        assertFalse(feat.contains(" RANG STREAM"), "RANG is for HASH only, not RETR and STOR: " + feat);
        assertEquals(List.of("200 MD5"), send("OPTS HASH md5\r\n"));
        assertTrue(send("FEAT\r\n").contains(" HASH SHA-256;SHA-512;SHA-1;MD5*;CRC32"));
        assertTrue(send("OPTS HASH BLAKE9\r\n").get(0).startsWith("501 "), "draft-bryan-ftpext-hash §3.2");
        assertTrue(send("OPTS HASH ADLER32\r\n").get(0).startsWith("501 "), "CKSM's alone");
        assertEquals(List.of("200 SHA-512"), send("OPTS HASH sha-512\r\n"));
    }

    @Test
    void registersExtensionCommandsThatRequireTls() throws Exception {
        FtpServerContext base = TestContexts.context(root, PLAIN);
        FtpCommands commands = io.fsp.server.ftp.command.StandardCommands.create()
                .register(new io.fsp.server.ftp.FtpCommand() {
                    @Override
                    public String verb() {
                        return "XFSP";
                    }

                    @Override
                    public String syntax() {
                        return "XFSP";
                    }

                    @Override
                    public io.fsp.server.ftp.Access access() {
                        return io.fsp.server.ftp.Access.LOGGED_IN;
                    }

                    @Override
                    public boolean requiresTls() {
                        return true;
                    }

                    @Override
                    public List<String> features(FtpSession session) {
                        return List.of("XFSP v1");
                    }

                    @Override
                    public void execute(FtpSession session, FtpRequest request) {
                        session.reply(Replies.ok("XFSP ok"));
                    }
                });
        ch = new SocketLikeChannel(new FtpServerContext(base.config(), base.sslContext(), base.dataSslContext(),
                base.fingerprint(), base.users(), base.loginThrottle(), commands, base.blocking(), base.logins(),
                base.connectionLimits(), base.passivePorts(), base.announceAddress()));
        replies();
        assertFalse(send("FEAT\r\n").contains(" XFSP v1"), "not advertised without TLS");
        login();
        assertTrue(send("XFSP\r\n").get(0).startsWith("534 "), "refused without TLS");
    }

    @Test
    void helpListsVerbsAndSyntax() throws Exception {
        start(PLAIN);
        List<String> help = send("HELP\r\n");
        assertEquals("214-The following commands are recognized:", help.get(0));
        assertTrue(String.join(" ", help).contains("XPWD"));
        assertEquals(List.of("214 Syntax: RETR <path>"), send("HELP retr\r\n"));
    }

    @Test
    void keepsServingAfterMalformedInput() throws Exception {
        start(PLAIN);
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {'C', 'W', 'D', ' ', (byte) 0xC3, 0x28, '\r', '\n'}));
        assertTrue(replies().get(0).startsWith("501 "));
        assertTrue(send("X".repeat(2000) + "\r\n").get(0).startsWith("500 "));
        assertTrue(send("NOOP\r\n").get(0).startsWith("200 "));
    }

    @Test
    void answersBadArgumentsWith501And504() throws Exception {
        start(PLAIN);
        login();
        assertTrue(send("TYPE X\r\n").get(0).startsWith("501 "));
        assertTrue(send("TYPE E\r\n").get(0).startsWith("504 "));
        assertTrue(send("MODE B\r\n").get(0).startsWith("504 "));
        assertTrue(send("STRU R\r\n").get(0).startsWith("504 "));
        assertTrue(send("REST -1\r\n").get(0).startsWith("501 "));
        assertTrue(send("PORT 1,2,3\r\n").get(0).startsWith("501 "));
        assertTrue(send("PORT 10,0,0,9,200,10\r\n").get(0).startsWith("501 "), "another host");
        assertTrue(send("PORT 127,0,0,1,0,21\r\n").get(0).startsWith("501 "), "privileged port");
        assertTrue(send("EPRT |2|::1|5000|\r\n").get(0).startsWith("522 "), "IPv6 on an IPv4 connection");
        assertTrue(send("EPRT garbage\r\n").get(0).startsWith("501 "));
        assertTrue(send("RETR\r\n").get(0).startsWith("501 "));
        assertTrue(send("RETR missing.txt\r\n").get(0).startsWith("425 "), "no data connection prepared");
    }

    @Test
    void unspecifiedAddressInPortAndEprtMeansTheClient() throws Exception {
        start(PLAIN);
        login();
        assertEquals(List.of("200 PORT command successful"), send("EPRT |1|0.0.0.0|5000|\r\n"));
        assertEquals(List.of("200 PORT command successful"), send("PORT 0,0,0,0,19,136\r\n"));
        assertTrue(send("EPRT |1|127.0.0.2|5000|\r\n").get(0).startsWith("501 "), "another address stays refused");
    }

    @Test
    void epsvAllRefusesOtherDataCommands() throws Exception {
        start(PLAIN);
        login();
        assertEquals(List.of("200 EPSV ALL ok"), send("EPSV ALL\r\n"));
        assertTrue(send("PASV\r\n").get(0).startsWith("503 "));
        assertTrue(send("PORT 127,0,0,1,200,10\r\n").get(0).startsWith("503 "));
        assertTrue(send("EPRT |1|127.0.0.1|5000|\r\n").get(0).startsWith("503 "));
    }

    @Test
    void cwdAndCdupStayInsideTheRoot() throws Exception {
        java.nio.file.Files.createDirectories(root.resolve("d"));
        start(PLAIN);
        login();
        assertTrue(send("CWD d\r\n").get(0).startsWith("250 "));
        assertEquals(List.of("257 \"/d\" is the current directory"), send("PWD\r\n"));
        assertTrue(send("CDUP\r\nCDUP\r\n").get(1).startsWith("250 "));
        assertEquals(List.of("257 \"/\" is the current directory"), send("PWD\r\n"));
        assertTrue(send("CWD nope\r\n").get(0).startsWith("550 "));
    }

    @Test
    void stopsReadingAndExecutingWhileRepliesAreNotRead() throws Exception {
        start(PLAIN);
        ch.unsafe().outboundBuffer().setUserDefinedWritability(1, false); // as when the peer stops reading
        assertEquals(List.of(), send("HELP\r\nNOOP\r\nbad\u0000line\r\n"), "nothing executed while unwritable");
        assertFalse(ch.config().isAutoRead(), "reading stopped");
        ch.unsafe().outboundBuffer().setUserDefinedWritability(1, true);
        List<String> r = replies();
        assertTrue(r.get(0).startsWith("214-"), r.toString());
        assertTrue(r.get(r.size() - 2).startsWith("200 "), r.toString());
        assertTrue(r.get(r.size() - 1).startsWith("500 "), r.toString());
        assertTrue(ch.config().isAutoRead(), "reading again");
    }

    @Test
    void aProducerOfRepliesWaitsWhileTheyAreNotRead() throws Exception {
        start(PLAIN);
        FtpSession session = ch.pipeline().get(FtpControlHandler.class).session();
        ch.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
        Producer waited = Producer.start(session);
        long looked = waited.awaitReturnedOrWaitingAfter(0);
        session.writabilityChanged(); // wakes it as the loop would: it looks again, and must wait again
        waited.awaitReturnedOrWaitingAfter(looked);
        assertFalse(waited.result().isDone(), "waits while the client does not read");
        ch.unsafe().outboundBuffer().setUserDefinedWritability(1, true);
        replies(); // the loop sees the channel writable again
        assertTrue(waited.result().get(5, java.util.concurrent.TimeUnit.SECONDS));

        ch.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
        replies();
        Producer closed = Producer.start(session);
        closed.awaitReturnedOrWaitingAfter(0);
        assertFalse(closed.result().isDone(), "waits while the client does not read");
        ch.close();
        replies();
        assertFalse(closed.result().get(5, java.util.concurrent.TimeUnit.SECONDS), "gives up once the connection closed");
    }

    /** A producer of replies on a thread of its own, calling {@link FtpSession#awaitReplyRoom}. */
    private record Producer(Thread thread, FutureTask<Boolean> result) {
        static Producer start(FtpSession session) {
            FutureTask<Boolean> result = new FutureTask<>(session::awaitReplyRoom);
            Thread thread = new Thread(result, "reply producer");
            thread.setDaemon(true);
            thread.start();
            return new Producer(thread, result);
        }

        /**
         * Waits until the producer returned, or waits for room after looking once more than {@code looked} times:
         * it is in {@code Object.wait} inside awaitReplyRoom, and has entered a wait more than {@code looked} times.
         * Returns how many times it has.
         */
        long awaitReturnedOrWaitingAfter(long looked) throws InterruptedException {
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
            while (!result.isDone()) {
                long waits = waits();
                if (waits > looked && waitingForRoom()) {
                    return waits;
                }
                assertTrue(System.nanoTime() < deadline, "the producer neither returned nor waited for room");
                Thread.sleep(5);
            }
            return looked;
        }

        private long waits() {
            java.lang.management.ThreadInfo info =
                    java.lang.management.ManagementFactory.getThreadMXBean().getThreadInfo(thread.getId());
            return info == null ? 0 : info.getWaitedCount();
        }

        private boolean waitingForRoom() {
            StackTraceElement[] stack = thread.getStackTrace();
            if (thread.getState() != Thread.State.TIMED_WAITING || stack.length == 0
                    || !stack[0].getClassName().equals(Object.class.getName())
                    || !stack[0].getMethodName().startsWith("wait")) {
                return false;
            }
            return java.util.Arrays.stream(stack).anyMatch(
                    f -> f.getClassName().equals(FtpSession.class.getName()) && f.getMethodName().equals("awaitReplyRoom"));
        }
    }

    /** A command whose blocking work, or what runs after it, fails with {@code failure}. */
    private static io.fsp.server.ftp.FtpCommand failing(String verb, boolean inWork, Error failure) {
        return new io.fsp.server.ftp.FtpCommand() {
            @Override
            public String verb() {
                return verb;
            }

            @Override
            public String syntax() {
                return verb;
            }

            @Override
            public io.fsp.server.ftp.Access access() {
                return io.fsp.server.ftp.Access.ANY;
            }

            @Override
            public void execute(FtpSession session, FtpRequest request) {
                session.blocking(io.fsp.server.fs.FtpPath.ROOT, () -> {
                    if (inWork) {
                        throw failure;
                    }
                    return "done";
                }, done -> {
                    throw failure;
                });
            }
        };
    }

    private void startWith(io.fsp.server.ftp.FtpCommand... extra) throws Exception {
        FtpServerContext base = TestContexts.context(root, PLAIN);
        FtpCommands commands = io.fsp.server.ftp.command.StandardCommands.create();
        for (io.fsp.server.ftp.FtpCommand c : extra) {
            commands.register(c);
        }
        ch = new SocketLikeChannel(new FtpServerContext(base.config(), base.sslContext(), base.dataSslContext(),
                base.fingerprint(), base.users(), base.loginThrottle(), commands, base.blocking(), base.logins(),
                base.connectionLimits(), base.passivePorts(), base.announceAddress()));
        replies();
    }

    @Test
    void answersAnErrorInBlockingWorkWith451AndGoesOn() throws Exception {
        startWith(failing("XOOM", true, new OutOfMemoryError("plan too large")),
                failing("XSOE", true, new StackOverflowError()));
        assertTrue(send("XOOM\r\n").get(0).startsWith("451 "));
        assertTrue(send("XSOE\r\n").get(0).startsWith("451 "));
        assertTrue(send("NOOP\r\n").get(0).startsWith("200 "));
        assertTrue(ch.isOpen());
    }

    @Test
    void answersAnErrorAfterBlockingWorkWith421AndCloses() throws Exception {
        startWith(failing("XOOM", false, new OutOfMemoryError("after the work")));
        assertTrue(send("XOOM\r\n").get(0).startsWith("421 "));
        assertFalse(ch.isOpen(), "the session's state is unknown: closed");
    }

    private void login() {
        List<String> r = send("USER alice\r\nPASS secret\r\n");
        assertTrue(r.get(1).startsWith("230 "), r.toString());
    }
}
