package io.fsp.client.evacuate;

import io.fsp.client.write.AtomicFileWriter;
import io.fsp.client.write.PositionalWriter;
import io.fsp.client.write.UnsafePathException;
import io.fsp.client.control.FspUrl;
import io.fsp.crypto.RecipientKey;
import io.fsp.crypto.SealedBox;
import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionCodec;
import io.fsp.extension.OriginSignature;
import io.fsp.tls.Fingerprint;
import io.fsp.token.TransferId;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What an evacuation placed, for the collector that comes later (docs/protocol.md §5): the origin and the
 * certificate it presented, when the relays' retention ends, the {@code 151} lines of the FRET in the order read
 * (transfer, key, token, relays, directories, files, blocks) that the origin signed, and its signature. UTF-8 text
 * with LF line ends, sealed whole with {@link SealedBox} to the safe site's {@link RecipientKey}:
 * <pre>
 * fsp-evacuation-manifest 3
 * origin fsp://USER@HOST:PORT/PATH
 * origin-certificate BASE64-DER
 * created 2026-11-24T08:00:00Z
 * retain-until 2026-12-01T08:00:00Z
 * state complete|partial|running
 * origin-signature STATE BASE64|none ({@link OriginSignature} over the announcements below, USER, PATH, created,
 *                                     retain-until and the STATE the origin signed)
 * FSP … / KEY … / TOKEN … / RELAY … SPACE … REFUSED … / DIR … / FILE … / BLK … STOPPED …   (one a line)
 * end NUMBER-OF-BLK-LINES
 * </pre>
 * Version 2, written from an older origin's signature (version 1: announcements, USER and PATH only), has
 * {@code origin-signature BASE64|none}; it is read, and written only for such a signature.
 * Reading is as strict as the control channel: the header exactly so, each announcement by {@link ExtensionCodec}
 * (the wire's grammar and limits), in the order the server sends them, every DIR and FILE name a safe relative
 * path (a single file's without {@code /}), the {@code end} count matching, the sealed file at most
 * {@link #MAX_SEALED_BYTES}. A sealed box proves who may open it, not who sealed it: {@link #checkOrigin} proves
 * that the origin a collector trusts announced all of it.
 *
 * @param created when the origin took the evacuation's FRET (whole seconds; as signed)
 * @param retainUntil until when the relays keep the blocks (whole seconds; as signed, never later than they do)
 * @param state how the evacuation stood: what the origin signed, or partial where it signed running (the
 *     evacuation stopped after that signature: its deadline, or a failure)
 * @param signature the origin's signature over {@code announcements}, or null (none: a manifest a collector
 *     trusts only with {@code --no-origin-check}); its {@link OriginSignature.Terms} only give the state it signed,
 *     {@code created} and {@code retainUntil} are this manifest's, and {@link #checkOrigin} verifies them
 */
public record EvacuationManifest(FspUrl origin, X509Certificate originCertificate, Instant created, Instant retainUntil,
                                 State state, List<Announcement> announcements, OriginSignature signature) {
    /** HPKE's info: a box sealed for another purpose does not open as a manifest. */
    public static final String PURPOSE = "evacuation manifest";
    /** The largest sealed manifest read: about 7 million BLK lines, 6 TiB at the default block size. */
    public static final long MAX_SEALED_BYTES = 1L << 30;
    /** The largest origin certificate (DER) a manifest holds. */
    public static final int MAX_CERTIFICATE_BYTES = 8192;
    static final String FIRST_LINE = "fsp-evacuation-manifest 3";
    /** The version written from an older origin's signature, which signs no created, retain-until or state. */
    static final String FIRST_LINE_2 = "fsp-evacuation-manifest 2";
    /**
     * About how many bytes of memory reading a manifest takes per sealed byte: the sealed and the opened bytes, the
     * decoded text and its lines, the announcements. {@link #read} refuses a manifest this JVM cannot hold.
     */
    static final int MEMORY_PER_BYTE = 6;

    /** How the evacuation stood when the manifest was written. */
    public enum State {
        /** The server answered 226: every block was placed (on relays, or announced {@code origin}). */
        COMPLETE,
        /** Stopped before that: the deadline, or FRET failed. */
        PARTIAL,
        /** A checkpoint of an evacuation still going on. */
        RUNNING;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        static State of(String label) {
            for (State s : values()) {
                if (s.label().equals(label)) {
                    return s;
                }
            }
            throw new IllegalArgumentException("state: '" + ManifestText.shorten(label)
                    + "' (expected: complete, partial or running)");
        }
    }

    /** Why a manifest cannot be used: not sealed to this identity, altered, too large, or not a manifest. */
    public static final class ManifestException extends Exception {
        private static final long serialVersionUID = 1L;

        public ManifestException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * What a collector expects of the evacuation ({@code fsp collect --expect-origin}), checked after the origin's
     * signature ({@link #checkExpected}): every part is one the origin signed.
     *
     * @param origin the account, server and path that were evacuated
     * @param notBefore the earliest {@code created} accepted, or null
     * @param transfer the transfer id (the FSP line's) expected, or null
     */
    public record Expected(FspUrl origin, Instant notBefore, TransferId transfer) {
        public Expected {
            Objects.requireNonNull(origin, "origin");
        }
    }

    /** Why a manifest's origin is not the one trusted: another certificate, no signature, or a signature that fails. */
    public static final class UntrustedOriginException extends Exception {
        private static final long serialVersionUID = 1L;

        UntrustedOriginException(String message) {
            super(message);
        }
    }

    public EvacuationManifest {
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(originCertificate, "originCertificate");
        Objects.requireNonNull(state, "state");
        created = created.truncatedTo(ChronoUnit.SECONDS);
        retainUntil = retainUntil.truncatedTo(ChronoUnit.SECONDS);
        announcements = List.copyOf(announcements);
        checkOrder(announcements);
        checkNames(announcements);
        if (signature != null && signature.lines() != announcements.size()) {
            throw new IllegalArgumentException("origin-signature: over " + signature.lines() + " announcements (expected: "
                    + announcements.size() + ", all of them)");
        }
    }

    /** The same manifest in another state. */
    public EvacuationManifest withState(State s) {
        return new EvacuationManifest(origin, originCertificate, created, retainUntil, s, announcements, signature);
    }

    /** The SHA-256 fingerprint of the origin's certificate. */
    public Fingerprint originFingerprint() {
        return Fingerprint.of(originCertificate);
    }

    /** 3, or 2 for a manifest of an older origin's signature (version 1: no created, retain-until or state signed). */
    public int version() {
        return signature != null && signature.version() == 1 ? 2 : 3;
    }

    /**
     * Checks that the origin whose certificate has the fingerprint {@code trusted} announced every announcement of
     * this manifest, for the account and path its origin line names, at its {@code created}, retained until its
     * {@code retainUntil}, in the state it says: the certificate is that one and its key signed them
     * ({@link OriginSignature}). Nothing else makes a manifest trustworthy: anyone who has the safe site's public
     * key can seal one. A version 2 manifest's signature covers the announcements, account and path only.
     */
    public void checkOrigin(Fingerprint trusted) throws UntrustedOriginException {
        if (!trusted.equals(originFingerprint())) {
            throw new UntrustedOriginException("the origin's certificate is " + originFingerprint() + ", not the trusted "
                    + trusted + ": refused, it was not evacuated from that server");
        }
        if (signature == null) {
            throw new UntrustedOriginException("the origin did not sign it (origin-signature none): refused, nothing"
                    + " shows that server announced it");
        }
        OriginSignature claimed = signature;
        if (signature.version() > 1) {
            String signed = signature.terms().state();
            if (!state.label().equals(signed) && !(state == State.PARTIAL && signed.equals(OriginSignature.RUNNING))) {
                throw new UntrustedOriginException("the manifest says state " + state.label() + ", the origin signed "
                        + signed + ": refused, the manifest is not what " + trusted + " announced");
            }
            claimed = signature.withTerms(new OriginSignature.Terms(created, retainUntil, signed));
        }
        OriginSignature.Lines lines = new OriginSignature.Lines();
        announcements.forEach(a -> lines.add(ExtensionCodec.format(a)));
        if (!claimed.verifies(originCertificate, origin.user(), origin.path(), lines.sha256())) {
            throw new UntrustedOriginException("the origin's signature does not match its announcements, account and"
                    + " path" + (signature.version() > 1 ? ", created, retain-until and state" : "")
                    + ": refused, the manifest is not what " + trusted + " announced");
        }
    }

    /**
     * Checks, once {@link #checkOrigin} passed, that this is the evacuation {@code expected}: of that account,
     * server and path, created at {@code notBefore} or later, of that transfer. Only a version 3 manifest can show
     * it: a version 2 one's created and state are not signed, so an older evacuation of the same path would pass.
     */
    public void checkExpected(Expected expected) throws UntrustedOriginException {
        if (version() < 3 || signature == null) {
            throw new UntrustedOriginException("a version " + version() + " manifest, from an origin that does not"
                    + " sign an evacuation's created, retain-until and state: refused, nothing shows which evacuation"
                    + " it is (collect it without --expect-origin, or evacuate again)");
        }
        FspUrl want = expected.origin();
        if (!want.user().equals(origin.user()) || !want.host().equalsIgnoreCase(origin.host()) || want.port() != origin.port()
                || !want.path().equals(origin.path())) {
            throw new UntrustedOriginException("it is the evacuation of " + origin + ", not of the expected " + want
                    + ": refused, another account's or another path's evacuation");
        }
        if (expected.notBefore() != null && created.isBefore(expected.notBefore())) {
            throw new UntrustedOriginException("it was created " + created + ", before " + expected.notBefore()
                    + " (--not-before): refused, an older evacuation");
        }
        TransferId id = announcements.isEmpty() || !(announcements.get(0) instanceof Announcement.Transfer t) ? null
                : t.id();
        if (expected.transfer() != null && !expected.transfer().equals(id)) {
            throw new UntrustedOriginException("it is " + (id == null ? "no transfer (nothing signed)" : "transfer " + id)
                    + ", not the expected " + expected.transfer() + " (--transfer): refused, another evacuation");
        }
    }

    /** The number of BLK lines (the {@code end} line's count). */
    public long blocks() {
        return announcements.stream().filter(a -> a instanceof Announcement.Block).count();
    }

    /** The plain text (what is sealed). */
    public String toText() {
        return ManifestText.format(this);
    }

    /**
     * Reads the plain text strictly; an {@link IllegalArgumentException} names the line and what was expected.
     */
    public static EvacuationManifest parse(String text) {
        return ManifestText.parse(text);
    }

    /**
     * Every DIR and FILE name, a relative path already (an announcement holds no other), fits a destination
     * ({@link PositionalWriter#checkRelative}) before any path is made of it, and a single file's name is one
     * segment: it becomes DEST/data/NAME.
     */
    private static void checkNames(List<Announcement> announcements) {
        boolean single = !announcements.isEmpty() && announcements.get(0) instanceof Announcement.Transfer t && !t.directory();
        for (Announcement a : announcements) {
            String name = a instanceof Announcement.File f ? f.name() : a instanceof Announcement.Directory d ? d.name() : null;
            if (name == null) {
                continue;
            }
            try {
                PositionalWriter.checkRelative(name);
            } catch (UnsafePathException e) {
                throw new IllegalArgumentException(ExtensionCodec.format(a).split(" ", 2)[0] + " " + e.getMessage(), e);
            }
            if (single && a instanceof Announcement.File && name.indexOf('/') >= 0) {
                throw new IllegalArgumentException("FILE name \"" + ManifestText.shorten(name) + "\": a single file's name with a '/'"
                        + " (expected: one segment)");
            }
        }
    }

    /**
     * The order the server announces in: FSP, KEY, TOKEN, then relays (with what each reserved, and those left out),
     * directories, files and blocks (with the relays that stopped taking them); a checkpoint may end anywhere.
     */
    private static void checkOrder(List<Announcement> announcements) {
        int previous = -1;
        for (int i = 0; i < announcements.size(); i++) {
            int rank = rank(announcements.get(i));
            // a relay may stop whenever blocks are placed: STOPPED goes anywhere after the TOKEN, leaving the order as it was
            boolean stopped = announcements.get(i) instanceof Announcement.Stopped;
            boolean ok = i < 3 ? rank == i : rank >= 3 && (stopped || rank >= previous);
            if (!ok) {
                throw new IllegalArgumentException("announcement " + (i + 1) + ": " + announcements.get(i).getClass().getSimpleName()
                        + " (expected: FSP, KEY, TOKEN, then RELAY, SPACE and REFUSED, DIR, FILE, and BLK and STOPPED"
                        + " lines in this order)");
            }
            previous = stopped ? previous : rank;
        }
    }

    private static int rank(Announcement a) {
        if (a instanceof Announcement.Transfer) {
            return 0;
        } else if (a instanceof Announcement.Key) {
            return 1;
        } else if (a instanceof Announcement.Token) {
            return 2;
        } else if (a instanceof Announcement.Relay || a instanceof Announcement.Space
                || a instanceof Announcement.Refused) {
            return 3; // what the relays said at the opening follows the RELAY lines
        } else if (a instanceof Announcement.Directory) {
            return 4;
        } else if (a instanceof Announcement.File) {
            return 5;
        }
        return 6;
    }

    /** The manifest sealed to {@code recipient}. */
    public byte[] seal(RecipientKey recipient) {
        return SealedBox.seal(toText().getBytes(StandardCharsets.UTF_8), recipient, PURPOSE);
    }

    /** Opens and reads a sealed manifest; says whether it is not sealed to this identity, altered, or malformed. */
    public static EvacuationManifest open(byte[] sealed, RecipientKey identity) throws ManifestException {
        byte[] plain;
        try {
            plain = SealedBox.open(sealed, identity, PURPOSE);
        } catch (SealedBox.SealedBoxException e) {
            throw new ManifestException(e.getMessage(), e);
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(plain)).toString();
        } catch (CharacterCodingException e) {
            throw new ManifestException("not UTF-8 text (expected: an evacuation manifest)", e);
        }
        try {
            return parse(text);
        } catch (IllegalArgumentException e) {
            throw new ManifestException("not a sound evacuation manifest: " + e.getMessage(), e);
        }
    }

    /**
     * Reads the sealed manifest {@code file} (at most {@link #MAX_SEALED_BYTES}, and at most what this JVM's memory
     * can hold: {@link #MEMORY_PER_BYTE} bytes for each) and opens it with {@code identity}.
     */
    public static EvacuationManifest read(Path file, RecipientKey identity) throws IOException, ManifestException {
        long size = Files.size(file);
        if (size > MAX_SEALED_BYTES) {
            throw new ManifestException(size + " bytes (expected: at most " + MAX_SEALED_BYTES + ")", null);
        }
        // refused before a byte is read: a manifest too large for this JVM would end it (out of memory) half-read
        long heap = Runtime.getRuntime().maxMemory();
        if (size * MEMORY_PER_BYTE > heap) {
            throw new ManifestException(size + " bytes, which take about " + (size * MEMORY_PER_BYTE >> 20)
                    + " MiB of memory to read; this JVM may use " + (heap >> 20) + " MiB (expected: a manifest of at most "
                    + heap / MEMORY_PER_BYTE + " bytes, or more memory: -Xmx in FSP_JAVA_OPTS)", null);
        }
        try (InputStream in = Files.newInputStream(file)) {
            byte[] sealed = in.readNBytes((int) MAX_SEALED_BYTES + 1);
            if (sealed.length > MAX_SEALED_BYTES) {
                throw new ManifestException("more than " + MAX_SEALED_BYTES + " bytes (expected: at most that)", null);
            }
            return open(sealed, identity);
        }
    }

    /**
     * Seals the manifest to {@code recipient} and puts it at {@code file} atomically and durably
     * ({@link AtomicFileWriter}): a crash leaves the old manifest or the new one.
     */
    public void write(Path file, RecipientKey recipient) throws IOException {
        AtomicFileWriter.write(file, seal(recipient));
    }
}
