package io.fsp.client.evacuate;

import io.fsp.client.control.FspUrl;
import io.fsp.client.evacuate.EvacuationManifest.State;
import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionCodec;
import io.fsp.extension.ExtensionLimits;
import io.fsp.extension.OriginSignature;
import java.io.ByteArrayInputStream;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import static io.fsp.client.evacuate.EvacuationManifest.FIRST_LINE;
import static io.fsp.client.evacuate.EvacuationManifest.FIRST_LINE_2;
import static io.fsp.client.evacuate.EvacuationManifest.MAX_CERTIFICATE_BYTES;

/**
 * An {@link EvacuationManifest}'s plain text: written, and read as strictly as the control channel reads a reply
 * (the header exactly so, each announcement by {@link ExtensionCodec}, the {@code end} count matching). An
 * {@link IllegalArgumentException} names the line and what was expected.
 */
final class ManifestText {
    private ManifestText() {
    }

    /** See {@link EvacuationManifest#toText}. */
    static String format(EvacuationManifest m) {
        String signed = m.signature() == null ? "none" : Base64.getEncoder().encodeToString(m.signature().signature());
        if (m.version() > 2 && m.signature() != null) {
            signed = m.signature().terms().state() + " " + signed;
        }
        StringBuilder sb = new StringBuilder(m.version() > 2 ? FIRST_LINE : FIRST_LINE_2).append('\n')
                .append("origin ").append(m.origin()).append('\n')
                .append("origin-certificate ").append(certificateText(m.originCertificate())).append('\n')
                .append("created ").append(m.created()).append('\n')
                .append("retain-until ").append(m.retainUntil()).append('\n')
                .append("state ").append(m.state().label()).append('\n')
                .append("origin-signature ").append(signed).append('\n');
        for (Announcement a : m.announcements()) {
            sb.append(ExtensionCodec.format(a)).append('\n');
        }
        return sb.append("end ").append(m.blocks()).append('\n').toString();
    }

    static EvacuationManifest parse(String text) {
        if (!text.endsWith("\n")) {
            throw new IllegalArgumentException("manifest: does not end with a line end (expected: LF after the end line)");
        }
        String[] lines = text.substring(0, text.length() - 1).split("\n", -1);
        if (lines.length < 8) {
            throw new IllegalArgumentException("manifest: " + lines.length + " lines (expected: 7 header lines, the"
                    + " announcements and the end line)");
        }
        try {
            return parse(lines);
        } catch (IllegalArgumentException | DateTimeParseException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static EvacuationManifest parse(String[] lines) {
        expect(lines, 0, FIRST_LINE.equals(lines[0]) || FIRST_LINE_2.equals(lines[0]), "'" + FIRST_LINE + "' (or an"
                + " older origin's '" + FIRST_LINE_2 + "')");
        boolean signsTerms = FIRST_LINE.equals(lines[0]);
        FspUrl origin;
        try {
            origin = FspUrl.parse(value(lines, 1, "origin"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("line 2: " + e.getMessage(), e);
        }
        expect(lines, 1, lines[1].equals("origin " + origin), "the URL as written: origin " + origin);
        X509Certificate certificate = certificate(lines, 2);
        Instant created = instant(lines, 3, "created");
        Instant retainUntil = instant(lines, 4, "retain-until");
        State state;
        try {
            state = State.of(value(lines, 5, "state"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("line 6: " + e.getMessage(), e);
        }
        String signed = value(lines, 6, "origin-signature");
        // only an older origin's signature makes a version 2 manifest (an unsigned one is version 3)
        expect(lines, 6, signsTerms || !signed.equals("none"), "a signature: an unsigned manifest is '" + FIRST_LINE + "'");
        byte[] signatureBytes = null;
        String signedState = null;
        if (signsTerms && !signed.equals("none")) {
            int space = signed.indexOf(' ');
            signedState = space < 0 ? "" : signed.substring(0, space);
            expect(lines, 6, List.of(OriginSignature.RUNNING, OriginSignature.COMPLETE, OriginSignature.PARTIAL)
                    .contains(signedState), "origin-signature STATE BASE64 (STATE: running, complete or partial), or none");
            signed = signed.substring(space + 1);
        }
        if (!signed.equals("none") || signedState != null) {
            try {
                signatureBytes = Base64.getDecoder().decode(signed);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("line 7: origin-signature: not base64 (expected: base64 or none)", e);
            }
            expect(lines, 6, signatureBytes.length >= 1 && signatureBytes.length <= ExtensionLimits.MAX_SIGNATURE_BYTES
                    && Base64.getEncoder().encodeToString(signatureBytes).equals(signed), "base64 of 1.."
                    + ExtensionLimits.MAX_SIGNATURE_BYTES + " bytes, or none");
        }
        List<Announcement> announcements = new ArrayList<>();
        int last = lines.length - 1;
        long blocks = 0;
        for (int i = 7; i < last; i++) {
            Announcement a;
            try {
                a = ExtensionCodec.parse(lines[i]);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("line " + (i + 1) + ": " + e.getMessage(), e);
            }
            announcements.add(a);
            blocks += a instanceof Announcement.Block ? 1 : 0;
        }
        expect(lines, last, lines[last].equals("end " + blocks), "'end " + blocks + "', the number of BLK lines");
        OriginSignature signature = signatureBytes == null ? null : signedState == null
                ? new OriginSignature(announcements.size(), signatureBytes)
                : new OriginSignature(announcements.size(), new OriginSignature.Terms(created, retainUntil, signedState),
                        signatureBytes);
        try {
            return new EvacuationManifest(origin, certificate, created, retainUntil, state, announcements, signature);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("announcements: " + e.getMessage(), e);
        }
    }

    private static X509Certificate certificate(String[] lines, int i) {
        String text = value(lines, i, "origin-certificate");
        expect(lines, i, text.length() <= (MAX_CERTIFICATE_BYTES + 2) / 3 * 4, "a certificate of at most "
                + MAX_CERTIFICATE_BYTES + " bytes");
        X509Certificate c;
        try {
            byte[] der = Base64.getDecoder().decode(text);
            c = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der));
        } catch (CertificateException | RuntimeException e) {
            throw new IllegalArgumentException("line " + (i + 1) + ": origin-certificate: not a certificate (expected: the"
                    + " base64 of an X.509 certificate in DER)", e);
        }
        expect(lines, i, certificateText(c).equals(text), "the certificate's DER in base64, as written");
        return c;
    }

    static String certificateText(X509Certificate c) {
        try {
            return Base64.getEncoder().encodeToString(c.getEncoded());
        } catch (CertificateEncodingException e) {
            throw new IllegalArgumentException("origin certificate: " + e.getMessage(), e);
        }
    }

    private static String value(String[] lines, int i, String key) {
        expect(lines, i, lines[i].startsWith(key + " "), "'" + key + " …'");
        return lines[i].substring(key.length() + 1);
    }

    private static Instant instant(String[] lines, int i, String key) {
        String v = value(lines, i, key);
        Instant t;
        try {
            t = Instant.parse(v);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("line " + (i + 1) + ": " + key + " '" + shorten(v)
                    + "' (expected: UTC time in whole seconds, e.g. 2026-11-24T08:00:00Z)", e);
        }
        expect(lines, i, t.truncatedTo(ChronoUnit.SECONDS).toString().equals(v), "UTC time in whole seconds, e.g. 2026-11-24T08:00:00Z");
        return t;
    }

    private static void expect(String[] lines, int i, boolean ok, String expected) {
        if (!ok) {
            throw new IllegalArgumentException("line " + (i + 1) + ": '" + shorten(lines[i]) + "' (expected: "
                    + expected + ")");
        }
    }

    static String shorten(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }
}
