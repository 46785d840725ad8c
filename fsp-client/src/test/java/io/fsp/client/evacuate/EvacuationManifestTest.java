package io.fsp.client.evacuate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.control.FspUrl;
import io.fsp.client.evacuate.EvacuationManifest.ManifestException;
import io.fsp.client.evacuate.EvacuationManifest.State;
import io.fsp.client.write.PositionalWriter;
import io.fsp.crypto.RecipientKey;
import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionCodec;
import io.fsp.client.evacuate.EvacuationManifest.UntrustedOriginException;
import io.fsp.extension.OriginSignature;
import io.fsp.tls.Certificates;
import io.fsp.tls.KeyMaterial;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TokenKey;
import io.fsp.token.TokenScope;
import io.fsp.token.TransferId;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EvacuationManifestTest {
    private static final RecipientKey SAFE_SITE = RecipientKey.generate("safe site");
    private static final String DIGEST = "sha256:" + "ab".repeat(32);
    private static final String FINGERPRINT = "AB:" + "01:".repeat(30) + "CD";

    @TempDir
    Path dir;

    static List<Announcement> announcements() {
        TransferId id = TransferId.parse("00112233445566ff");
        List<String> lines = List.of(
                "FSP 00112233445566ff kind=directory files=2 directories=1 bytes=5000 blocks=3 block-size=4096 replicas=2",
                "KEY " + java.util.Base64.getEncoder().encodeToString(new byte[32]),
                "TOKEN " + CapabilityToken.issue(TokenKey.random(), id, Instant.parse("2026-12-01T08:00:00Z"),
                        TokenScope.ALL).toText(),
                "RELAY 0 127.0.0.1:7001 " + FINGERPRINT,
                "RELAY 1 [::1]:7002 " + FINGERPRINT,
                "DIR sub",
                "FILE 0 4096 1700000000000 a.bin",
                "FILE 1 904 -5 sub%2Fb%20%C3%BC.bin",
                "BLK 1 relay:1,0 1 0 904 " + DIGEST,
                "BLK 0 relay:0,1 0 0 4096 " + DIGEST);
        List<Announcement> out = new ArrayList<>();
        lines.forEach(l -> out.add(ExtensionCodec.parse(l)));
        return out;
    }

    static final KeyMaterial ORIGIN = Certificates.selfSigned("origin");
    private static final FspUrl ORIGIN_URL = FspUrl.parse("fsp://alice@[::1]:2121/data/my%20set");

    private static final Instant CREATED = Instant.parse("2026-11-24T08:00:00Z");
    private static final Instant UNTIL = Instant.parse("2026-12-01T08:00:00Z");

    /** What the origin signs for {@code announcements} evacuated by {@code url}'s user and path, created at CREATED. */
    static OriginSignature sign(KeyMaterial key, FspUrl url, List<Announcement> announcements) {
        return sign(key, url, new OriginSignature.Terms(CREATED, UNTIL, OriginSignature.COMPLETE), announcements);
    }

    static OriginSignature sign(KeyMaterial key, FspUrl url, OriginSignature.Terms terms, List<Announcement> announcements) {
        OriginSignature.Lines lines = new OriginSignature.Lines();
        announcements.forEach(a -> lines.add(ExtensionCodec.format(a)));
        return OriginSignature.sign(key.privateKey(), url.user(), url.path(), terms, lines.count(), lines.sha256());
    }

    static EvacuationManifest manifest(State state) {
        List<Announcement> all = announcements();
        return new EvacuationManifest(ORIGIN_URL, ORIGIN.certificate(), Instant.parse("2026-11-24T08:00:00.750Z"),
                UNTIL, state, all, sign(ORIGIN, ORIGIN_URL, new OriginSignature.Terms(CREATED, UNTIL, state.label()), all));
    }

    @Test
    void writesTheAgreedTextAndReadsItBackExactly() throws Exception {
        EvacuationManifest m = manifest(State.COMPLETE);
        String text = m.toText();
        String certificate = Base64.getEncoder().encodeToString(ORIGIN.certificate().getEncoded());
        String signature = Base64.getEncoder().encodeToString(m.signature().signature());
        assertTrue(text.startsWith("fsp-evacuation-manifest 3\norigin fsp://alice@[::1]:2121/data/my%20set\norigin-certificate "
                + certificate + "\ncreated 2026-11-24T08:00:00Z\nretain-until 2026-12-01T08:00:00Z\nstate complete\n"
                + "origin-signature complete " + signature + "\nFSP "), text);
        assertTrue(text.endsWith("BLK 0 relay:0,1 0 0 4096 " + DIGEST + "\nend 2\n"), text);
        EvacuationManifest back = EvacuationManifest.parse(text);
        assertEquals(text, back.toText());
        assertEquals("/data/my set", back.origin().path());
        assertEquals(m.announcements().stream().map(ExtensionCodec::format).toList(),
                back.announcements().stream().map(ExtensionCodec::format).toList());
        assertEquals(2, back.blocks());
    }

    @Test
    void sealedFileOpensOnlyWithTheIdentityAndIsWrittenAtomically() throws Exception {
        Path file = dir.resolve("m.sealed");
        manifest(State.RUNNING).write(file, SAFE_SITE);
        manifest(State.COMPLETE).write(file, SAFE_SITE); // replaces the checkpoint
        assertEquals(List.of(file), Files.list(dir).toList(), "nothing left beside it");
        assertEquals(State.COMPLETE, EvacuationManifest.read(file, SAFE_SITE).state());
        assertTrue(!new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1).contains("a.bin"), "sealed, not clear");
    }

    @Test
    void aWrongIdentityIsNamedAsSuch() throws Exception {
        Path file = dir.resolve("m.sealed");
        manifest(State.COMPLETE).write(file, SAFE_SITE);
        ManifestException e = assertThrows(ManifestException.class,
                () -> EvacuationManifest.read(file, RecipientKey.generate("")));
        assertTrue(e.getMessage().contains("sealed to another recipient key"), e.getMessage());
    }

    @Test
    void anyChangedByteIsDetected() throws Exception {
        byte[] sealed = manifest(State.COMPLETE).seal(SAFE_SITE);
        for (int at : new int[] {20, 40, sealed.length / 2, sealed.length - 1}) {
            byte[] tampered = sealed.clone();
            tampered[at] ^= 1;
            ManifestException e = assertThrows(ManifestException.class, () -> EvacuationManifest.open(tampered, SAFE_SITE));
            assertTrue(e.getMessage().contains("altered or damaged"), at + ": " + e.getMessage());
        }
        ManifestException e = assertThrows(ManifestException.class,
                () -> EvacuationManifest.open("fsp-evacuation-manifest 1\n".getBytes(StandardCharsets.UTF_8), SAFE_SITE));
        assertTrue(e.getMessage().contains("not a sealed FSP file"), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "fsp-evacuation-manifest 3|fsp-evacuation-manifest 1|line 1",
        "origin fsp://alice@[::1]:2121/data/my%20set|origin fsp://alice:pw@[::1]:2121/data|line 2: url: a password",
        "origin fsp://alice@[::1]:2121/data/my%20set|origin http://alice@h/x|line 2",
        "origin-certificate MI|origin-certificate mI|line 3: origin-certificate: not a certificate",
        "origin-signature complete |origin-signature complete #|line 7: origin-signature: not base64",
        "origin-signature complete |origin-signature done |line 7",
        "origin-signature complete |origin-signature |line 7",
        "created 2026-11-24T08:00:00Z|created 2026-11-24T08:00:00.5Z|line 4",
        "created 2026-11-24T08:00:00Z|created yesterday|line 4",
        "retain-until 2026-12-01T08:00:00Z|retain-until 2026-12-01|line 5",
        "state complete|state done|line 6",
        "state complete|state  complete|line 6",
        "end 2|end 3|'end 2', the number of BLK lines",
        "end 2|end 1|'end 2', the number of BLK lines",
        "BLK 0 relay:0,1 0 0 4096|BLK 0 relay:0,1 0 0 04096|line 17",
        "DIR sub|KEY none|announcement 6: Key (expected: FSP, KEY, TOKEN, then RELAY, SPACE and REFUSED, DIR, FILE, and BLK and STOPPED lines in this order)",
        "RELAY 0 127.0.0.1:7001|BLK 5 relay:0 0 0 1 " + "sha256:" + "ab" + "|line 11",
        "KEY |TOKEN |line 9: TOKEN"})
    void badHeadersAndLinesAreRefusedNamingTheLine(String from, String to, String expected) {
        String text = manifest(State.COMPLETE).toText();
        assertTrue(text.contains(from), from);
        String bad = text.replaceFirst(java.util.regex.Pattern.quote(from), java.util.regex.Matcher.quoteReplacement(to));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EvacuationManifest.parse(bad));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void aMissingLineEndOrHeaderIsRefused() {
        String text = manifest(State.COMPLETE).toText();
        assertThrows(IllegalArgumentException.class, () -> EvacuationManifest.parse(text.substring(0, text.length() - 1)));
        assertThrows(IllegalArgumentException.class, () -> EvacuationManifest.parse(text.replace("state complete\n", "")));
        assertThrows(IllegalArgumentException.class, () -> EvacuationManifest.parse(text.replace("\n", "\r\n")));
    }

    /** What the relays said of the transfer: SPACE and REFUSED after the RELAY lines, STOPPED among the blocks. */
    static List<Announcement> withRelayOutcomes() {
        List<Announcement> all = new ArrayList<>(announcements());
        all.add(5, ExtensionCodec.parse("SPACE 0 5000 5000"));
        all.add(6, ExtensionCodec.parse("SPACE 1 4096 5000"));
        all.add(7, ExtensionCodec.parse("REFUSED 127.0.0.1:7003 RETENTION_TOO_LONG at%20most%201d"));
        all.add(all.size() - 1, ExtensionCodec.parse("STOPPED 1 NO_SPACE reservation%20full"));
        return all;
    }

    @Test
    void relayOutcomesRoundTripAndAreSigned() throws Exception {
        List<Announcement> all = withRelayOutcomes();
        EvacuationManifest m = new EvacuationManifest(ORIGIN_URL, ORIGIN.certificate(), CREATED, UNTIL, State.PARTIAL,
                all, sign(ORIGIN, ORIGIN_URL, new OriginSignature.Terms(CREATED, UNTIL, OriginSignature.PARTIAL), all));
        EvacuationManifest back = EvacuationManifest.parse(m.toText());
        assertEquals(m.toText(), back.toText());
        assertTrue(back.toText().contains("\nSPACE 1 4096 5000\nREFUSED 127.0.0.1:7003 RETENTION_TOO_LONG at%20most%201d\nDIR sub\n"));
        assertEquals(2, back.blocks());
        back.checkOrigin(ORIGIN.fingerprint());
        // STOPPED may come before the first block (a relay that failed at once), not before the TOKEN
        List<Announcement> early = new ArrayList<>(announcements());
        early.add(5, ExtensionCodec.parse("STOPPED 0 FAILED gone"));
        new EvacuationManifest(ORIGIN_URL, ORIGIN.certificate(), CREATED, UNTIL, State.PARTIAL, early, null);
        List<Announcement> late = new ArrayList<>(announcements());
        late.add(late.size() - 1, ExtensionCodec.parse("SPACE 0 1 1"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new EvacuationManifest(ORIGIN_URL,
                ORIGIN.certificate(), CREATED, UNTIL, State.PARTIAL, late, null));
        assertTrue(e.getMessage().contains("announcement 10: Space"), e.getMessage());
    }

    @Test
    void aCheckpointMayEndAfterAnyAnnouncement() throws Exception {
        List<Announcement> all = announcements();
        for (int n = 0; n <= all.size(); n++) {
            FspUrl url = FspUrl.parse("fsp://alice@host/data");
            EvacuationManifest m = new EvacuationManifest(url, ORIGIN.certificate(), Instant.EPOCH, Instant.EPOCH,
                    State.RUNNING, all.subList(0, n), sign(ORIGIN, url, new OriginSignature.Terms(Instant.EPOCH,
                            Instant.EPOCH, OriginSignature.RUNNING), all.subList(0, n)));
            assertEquals(m.toText(), EvacuationManifest.parse(m.toText()).toText());
            EvacuationManifest.parse(m.toText()).checkOrigin(ORIGIN.fingerprint());
        }
    }

    @Test
    void aSealedFileLargerThanTheLimitIsRefusedBeforeItIsRead() throws Exception {
        Path big = dir.resolve("big.sealed");
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(EvacuationManifest.MAX_SEALED_BYTES + 1); // sparse: nothing is written
        }
        ManifestException e = assertThrows(ManifestException.class, () -> EvacuationManifest.read(big, SAFE_SITE));
        assertTrue(e.getMessage().contains("expected: at most " + EvacuationManifest.MAX_SEALED_BYTES), e.getMessage());
    }

    @Test
    void aBoxSealedForAnotherPurposeDoesNotOpenAsAManifest() {
        byte[] other = io.fsp.crypto.SealedBox.seal(manifest(State.COMPLETE).toText().getBytes(StandardCharsets.UTF_8),
                SAFE_SITE, "something else");
        assertThrows(ManifestException.class, () -> EvacuationManifest.open(other, SAFE_SITE));
    }

    @Test
    void theTrustedOriginsSignatureOverEveryAnnouncementIsAccepted() throws Exception {
        EvacuationManifest back = EvacuationManifest.parse(manifest(State.COMPLETE).toText());
        back.checkOrigin(ORIGIN.fingerprint());
        assertEquals(ORIGIN.fingerprint(), back.originFingerprint());
    }

    /**
     * The forgery: whoever has the safe site's public key seals a manifest of their own data that names the trusted
     * origin. With the origin's certificate (public) they have no signature of it, with their own the fingerprint
     * differs; a genuine signature over other lines, another account or another path does not verify either.
     */
    @Test
    void aManifestTheTrustedOriginDidNotSignIsRefused() {
        KeyMaterial attacker = Certificates.selfSigned("origin");
        List<Announcement> all = announcements();
        Instant t = CREATED;
        Instant u = UNTIL;
        String unsigned = refused(new EvacuationManifest(ORIGIN_URL, ORIGIN.certificate(), t, u, State.COMPLETE, all, null));
        assertTrue(unsigned.contains("did not sign it"), unsigned);
        String ownKey = refused(new EvacuationManifest(ORIGIN_URL, ORIGIN.certificate(), t, u, State.COMPLETE, all,
                sign(attacker, ORIGIN_URL, all)));
        assertTrue(ownKey.contains("signature does not match"), ownKey);
        String ownCertificate = refused(new EvacuationManifest(ORIGIN_URL, attacker.certificate(), t, u, State.COMPLETE, all,
                sign(attacker, ORIGIN_URL, all)));
        assertTrue(ownCertificate.contains("the origin's certificate is " + attacker.fingerprint() + ", not the trusted "
                + ORIGIN.fingerprint()), ownCertificate);
        // a genuine signature, over other lines: one block's digest changed
        List<Announcement> tampered = new ArrayList<>(all);
        tampered.set(all.size() - 1, ExtensionCodec.parse("BLK 0 relay:0,1 0 0 4096 sha256:" + "cd".repeat(32)));
        assertTrue(refused(new EvacuationManifest(ORIGIN_URL, ORIGIN.certificate(), t, u, State.COMPLETE, tampered,
                sign(ORIGIN, ORIGIN_URL, all))).contains("signature does not match"));
        // a genuine signature of another account's or another path's evacuation
        for (String other : List.of("fsp://mallory@[::1]:2121/data/my%20set", "fsp://alice@[::1]:2121/data/other")) {
            FspUrl url = FspUrl.parse(other);
            assertTrue(refused(new EvacuationManifest(url, ORIGIN.certificate(), t, u, State.COMPLETE, all,
                    sign(ORIGIN, ORIGIN_URL, all))).contains("signature does not match"), other);
        }
    }

    /** The genuine manifest, its created, retain-until or state edited: the signature covers them. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "created 2026-11-24T08:00:00Z|created 2026-11-25T08:00:00Z|signature does not match",
        "retain-until 2026-12-01T08:00:00Z|retain-until 2026-12-31T08:00:00Z|signature does not match",
        "state complete|state running|the manifest says state running, the origin signed complete",
        "state complete|state partial|the manifest says state partial, the origin signed complete"})
    void anEditedCreatedRetainUntilOrStateIsRefused(String from, String to, String expected) {
        String text = manifest(State.COMPLETE).toText();
        assertTrue(text.contains(from + "\n") || text.contains(from + " "), from);
        EvacuationManifest edited = EvacuationManifest.parse(text.replace(from, to));
        String e = assertThrows(UntrustedOriginException.class, () -> edited.checkOrigin(ORIGIN.fingerprint())).getMessage();
        assertTrue(e.contains(expected), e);
    }

    /** A run stopped after the origin's last signature (running) may say partial, never complete. */
    @Test
    void aStoppedRunSaysPartialOverARunningSignatureButNeverComplete() throws Exception {
        List<Announcement> all = announcements();
        OriginSignature running = sign(ORIGIN, ORIGIN_URL, new OriginSignature.Terms(CREATED, UNTIL, OriginSignature.RUNNING),
                all);
        for (State s : List.of(State.RUNNING, State.PARTIAL)) {
            EvacuationManifest m = EvacuationManifest.parse(new EvacuationManifest(ORIGIN_URL, ORIGIN.certificate(), CREATED,
                    UNTIL, s, all, running).toText());
            m.checkOrigin(ORIGIN.fingerprint());
            assertTrue(m.toText().contains("\nstate " + s.label() + "\norigin-signature running "), m.toText());
        }
        String e = refused(new EvacuationManifest(ORIGIN_URL, ORIGIN.certificate(), CREATED, UNTIL, State.COMPLETE, all,
                running));
        assertTrue(e.contains("the manifest says state complete, the origin signed running"), e);
        // nor can the state the origin signed be edited: partial made running, to be called partial
        String signedPartial = manifest(State.PARTIAL).toText();
        assertTrue(signedPartial.contains("\norigin-signature partial "), signedPartial);
        EvacuationManifest edited = EvacuationManifest.parse(signedPartial.replace("\norigin-signature partial ",
                "\norigin-signature running "));
        e = assertThrows(UntrustedOriginException.class, () -> edited.checkOrigin(ORIGIN.fingerprint())).getMessage();
        assertTrue(e.contains("signature does not match its announcements, account and path, created, retain-until and"
                + " state"), e);
    }

    /** {@code fsp collect --expect-origin}: another account's, server's or path's evacuation, an older one, another id. */
    @Test
    void onlyTheEvacuationExpectedPasses() throws Exception {
        EvacuationManifest m = EvacuationManifest.parse(manifest(State.COMPLETE).toText());
        m.checkOrigin(ORIGIN.fingerprint());
        TransferId id = TransferId.parse("00112233445566ff");
        m.checkExpected(new EvacuationManifest.Expected(ORIGIN_URL, null, null));
        m.checkExpected(new EvacuationManifest.Expected(ORIGIN_URL, CREATED, id));
        for (String other : List.of("fsp://mallory@[::1]:2121/data/my%20set", "fsp://alice@[::1]:2121/data/other",
                "fsp://alice@[::1]:2121/data/my%20set/", "fsp://alice@[::1]:2122/data/my%20set",
                "fsp://alice@localhost:2121/data/my%20set")) {
            String e = assertThrows(UntrustedOriginException.class, () -> m.checkExpected(
                    new EvacuationManifest.Expected(FspUrl.parse(other), null, null))).getMessage();
            assertTrue(e.contains("not of the expected " + FspUrl.parse(other)), e);
        }
        String older = assertThrows(UntrustedOriginException.class, () -> m.checkExpected(
                new EvacuationManifest.Expected(ORIGIN_URL, CREATED.plusSeconds(1), null))).getMessage();
        assertTrue(older.contains("created 2026-11-24T08:00:00Z, before 2026-11-24T08:00:01Z"), older);
        String another = assertThrows(UntrustedOriginException.class, () -> m.checkExpected(
                new EvacuationManifest.Expected(ORIGIN_URL, null, TransferId.parse("00112233445566fe")))).getMessage();
        assertTrue(another.contains("transfer 00112233445566ff, not the expected 00112233445566fe"), another);
    }

    /**
     * An older origin's signature (version 1: announcements, account and path) makes a version 2 manifest: read and
     * checked as before, but it cannot show which evacuation it is.
     */
    @Test
    void aVersion2ManifestIsCheckedAsBeforeButNeverPassesAsExpected() throws Exception {
        List<Announcement> all = announcements();
        OriginSignature.Lines lines = new OriginSignature.Lines();
        all.forEach(a -> lines.add(ExtensionCodec.format(a)));
        java.security.Signature signer = java.security.Signature.getInstance("SHA256withECDSA");
        signer.initSign(ORIGIN.privateKey());
        signer.update(OriginSignature.statement(ORIGIN_URL.user(), ORIGIN_URL.path(), lines.count(), lines.sha256()));
        OriginSignature old = new OriginSignature(lines.count(), signer.sign());
        String text = new EvacuationManifest(ORIGIN_URL, ORIGIN.certificate(), CREATED, UNTIL, State.COMPLETE, all, old)
                .toText();
        assertTrue(text.startsWith("fsp-evacuation-manifest 2\n"), text);
        assertTrue(text.contains("\norigin-signature " + Base64.getEncoder().encodeToString(old.signature()) + "\n"), text);
        EvacuationManifest back = EvacuationManifest.parse(text);
        assertEquals(2, back.version());
        assertEquals(text, back.toText());
        back.checkOrigin(ORIGIN.fingerprint());
        // its created is not signed: a replayed older evacuation would pass as well
        EvacuationManifest.parse(text.replace("created 2026-11-24", "created 2027-11-24")).checkOrigin(ORIGIN.fingerprint());
        String e = assertThrows(UntrustedOriginException.class, () -> back.checkExpected(
                new EvacuationManifest.Expected(ORIGIN_URL, null, null))).getMessage();
        assertTrue(e.contains("a version 2 manifest"), e);
    }

    /** A manifest this JVM's memory could not hold is refused before a byte of it is read. */
    @Test
    void aManifestLargerThanMemoryCanHoldIsRefusedBeforeItIsRead() throws Exception {
        long most = Runtime.getRuntime().maxMemory() / EvacuationManifest.MEMORY_PER_BYTE;
        org.junit.jupiter.api.Assumptions.assumeTrue(most < EvacuationManifest.MAX_SEALED_BYTES, "a heap of 6 GiB or more");
        Path big = dir.resolve("big.sealed");
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(most + 1); // sparse: nothing is written
        }
        ManifestException e = assertThrows(ManifestException.class, () -> EvacuationManifest.read(big, SAFE_SITE));
        assertTrue(e.getMessage().contains("MiB of memory to read; this JVM may use"), e.getMessage());
    }

    private static String refused(EvacuationManifest m) {
        EvacuationManifest back = EvacuationManifest.parse(m.toText());
        return assertThrows(UntrustedOriginException.class, () -> back.checkOrigin(ORIGIN.fingerprint())).getMessage();
    }

    @ParameterizedTest
    @CsvSource({"..", "..%2F..%2Fescaped.bin", "%2Fetc%2Fpasswd", "a%2F..%2F..%2Fb", "sub%2Fname.bin", "."})
    void aSingleFilesNameThatIsNotOneSafeSegmentIsRefused(String encoded) {
        Instant t = Instant.EPOCH;
        // an unsafe name is refused as its line is read, a safe path with a '/' by the manifest
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new EvacuationManifest(ORIGIN_URL,
                ORIGIN.certificate(), t, t, State.RUNNING, List.of(
                        ExtensionCodec.parse("FSP 00112233445566ff kind=file files=1 directories=0 bytes=10 blocks=1"),
                        ExtensionCodec.parse("KEY none"), announcements().get(2), ExtensionCodec.parse("FILE 0 10 0 " + encoded)),
                null));
        assertTrue(e.getMessage().startsWith("FILE name"), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({"DIR,..", "DIR,a%2F..", "FILE 0 4096 1700000000000,..%2Fa.bin", "FILE 0 4096 1700000000000,%2Fa.bin",
            "FILE 0 4096 1700000000000,a%2F%2Fb", "FILE 0 4096 1700000000000,a%5Cb"})
    void aDirectoryEntryThatLeavesTheBagIsRefused(String prefix, String encoded) {
        List<Announcement> lines = new ArrayList<>(announcements().subList(0, 5));
        Instant t = Instant.EPOCH;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> {
            lines.add(ExtensionCodec.parse(prefix + " " + encoded));
            new EvacuationManifest(ORIGIN_URL, ORIGIN.certificate(), t, t, State.RUNNING, lines, null);
        });
        assertTrue(e.getMessage().startsWith(prefix.split(" ")[0] + " name \""), e.getMessage());
    }

    /** The destination's limits too: a segment longer than a file system takes is refused before a file is made. */
    @Test
    void aNameTooLongForADestinationIsRefused() {
        List<Announcement> lines = new ArrayList<>(announcements().subList(0, 5));
        lines.add(new Announcement.Directory("d/" + "x".repeat(PositionalWriter.MAX_SEGMENT_BYTES + 1)));
        Instant t = Instant.EPOCH;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new EvacuationManifest(ORIGIN_URL, ORIGIN.certificate(), t, t, State.RUNNING, lines, null));
        assertTrue(e.getMessage().startsWith("DIR path"), e.getMessage());
    }
}
