package io.fsp.it.harness;

import io.fsp.client.control.ControlChannel;
import io.fsp.client.control.FspUrl;
import io.fsp.client.evacuate.EvacuationManifest;
import io.fsp.crypto.RecipientKey;
import io.fsp.extension.Announcement;
import io.fsp.extension.OriginSignature;
import io.fsp.tls.PinnedTrustManager;
import java.io.IOException;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * An ordinary FRET on a {@link StripeRig} whose {@code 151} lines are read and kept, nothing fetched: what an
 * evacuation records, for collecting it later from a manifest. The control connection stays open until
 * {@link #close}, so that the server does not abort the transfer at the relays meanwhile. With {@code retain} the
 * server signs its lines ({@code SIG}); the last signature is kept, and a manifest of every line carries it with
 * the created and retain-until it signed.
 */
public final class RecordedFret implements AutoCloseable {
    private final StripeRig rig;
    private final String path;
    private final ControlChannel control;
    private final List<Announcement> announcements;
    private final X509Certificate certificate;
    private final OriginSignature signature;

    private RecordedFret(StripeRig rig, String path, ControlChannel control, List<Announcement> announcements,
                         X509Certificate certificate, OriginSignature signature) {
        this.rig = rig;
        this.path = path;
        this.control = control;
        this.announcements = announcements;
        this.certificate = certificate;
        this.signature = signature;
    }

    /** Logs in, sets {@code fspOptions}, sends {@code FRET path} and reads its announcements up to the 226. */
    public static RecordedFret of(StripeRig rig, String path, String... fspOptions) throws IOException {
        ControlChannel c = ControlChannel.connect("127.0.0.1", rig.port(),
                PinnedTrustManager.of(Set.of(rig.server().fingerprint())), Duration.ofSeconds(10));
        try {
            c.login(StripeRig.USER, StripeRig.PASSWORD.toCharArray(), false);
            ControlChannel.expect(c.command("FSPO include-direct=off " + String.join(" ", fspOptions)), 200, "FSPO");
            Fret fret = Fret.read(c, path);
            List<Announcement> lines = fret.announcements();
            OriginSignature signature = fret.signature();
            if (signature != null && signature.lines() != lines.size()) {
                throw new IOException("the last SIG covers " + signature.lines() + " of " + lines.size() + " lines");
            }
            return new RecordedFret(rig, path, c, lines, c.peerCertificate(), signature);
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    public List<Announcement> announcements() {
        return announcements;
    }

    public OriginSignature signature() {
        return signature;
    }

    /**
     * The manifest of every line read, or of those {@code keep} accepts, sealed to {@code recipient} at {@code file}:
     * with the server's signature when it signed them all and all are kept, else unsigned.
     */
    public EvacuationManifest write(Path file, RecipientKey recipient, EvacuationManifest.State state,
                                    Predicate<Announcement> keep) throws IOException {
        List<Announcement> kept = announcements.stream().filter(keep).toList();
        OriginSignature signed = kept.size() == announcements.size() ? signature : null;
        // the times the origin signed, else now
        Instant created = signed != null ? signed.terms().created() : Instant.now();
        Instant until = signed != null ? signed.terms().retainUntil() : created.plus(Duration.ofHours(1));
        EvacuationManifest m = new EvacuationManifest(new FspUrl(StripeRig.USER, "127.0.0.1", rig.port(), path),
                certificate, created, until, state, kept, signed);
        m.write(file, recipient);
        return m;
    }

    @Override
    public void close() {
        control.close();
    }
}
