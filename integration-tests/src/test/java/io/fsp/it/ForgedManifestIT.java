package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.cli.ExitCodes;
import io.fsp.client.control.ControlChannel;
import io.fsp.client.control.FspUrl;
import io.fsp.client.evacuate.EvacuationManifest;
import io.fsp.client.evacuate.EvacuationManifest.State;
import io.fsp.crypto.RecipientKey;
import io.fsp.crypto.SealedBox;
import io.fsp.extension.Announcement;
import io.fsp.extension.OriginSignature;
import io.fsp.it.harness.FspCommand;
import io.fsp.it.harness.FspCommand.Result;
import io.fsp.it.harness.RecordedFret;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import io.fsp.testkit.relay.Fault;
import io.fsp.tls.KeyMaterial;
import io.fsp.tls.PinnedTrustManager;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile manifests against {@code fsp collect} as a process (docs/protocol.md §5): an attacker who knows the safe
 * site's public key and the origin's certificate (both public) seals a manifest of their own data, evacuated from
 * their own server to their own relay, that names the origin. {@code --trust-origin} refuses every variant with exit
 * 6 before anything is written; a genuine {@code fsp evacuate} of the origin still collects. Another retain-user's
 * evacuation, an older one of the same path, a genuine manifest whose created, retain-until or state was edited:
 * exit 6 with {@code --expect-origin} (and {@code --not-before} or {@code --transfer}). A manifest whose file
 * name leaves the bag is refused before any file is created; one too large for the collector's memory before it is read.
 */
@Timeout(300)
class ForgedManifestIT {
    private static final Fault[] HONEST = {};

    @TempDir
    Path dir;

    private RecipientKey published;
    private Path identity;
    private Path recipient;

    @BeforeEach
    void keys() throws Exception {
        RecipientKey safeSite = RecipientKey.generate("safe site");
        identity = dir.resolve("safe/identity");
        recipient = dir.resolve("safe/recipient.pub");
        safeSite.writeIdentity(identity, false);
        safeSite.writePublic(recipient, false);
        published = RecipientKey.readPublic(recipient); // all the attacker has of the safe site
    }

    private Result collect(Path manifest, Path dest, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("collect", manifest.toString(), "-o", dest.toString(),
                "--identity", identity.toString()));
        args.addAll(List.of(more));
        return FspCommand.run(args);
    }

    /** Every path under {@code d}, to show that a refused collect created nothing. */
    private static List<Path> everything(Path d) throws Exception {
        try (Stream<Path> s = Files.walk(d)) {
            return s.sorted().toList();
        }
    }

    @Test
    void aManifestTheOriginDidNotSignIsRefusedBeforeAnythingIsWrittenAndAGenuineOneIsCollected() throws Exception {
        try (StripeRig origin = StripeRig.start(dir.resolve("origin"), 64L << 20, HONEST, HONEST);
             StripeRig attacker = StripeRig.start(dir.resolve("attacker"), 64L << 20, HONEST)) {
            Path genuine = origin.root().resolve("data.bin");
            TreeDigests.random(genuine, 300_000, 1);
            TreeDigests.random(attacker.root().resolve("data.bin"), 200_000, 7);
            String trusted = origin.server().fingerprint().toString();
            FspUrl originUrl = new FspUrl(StripeRig.USER, "127.0.0.1", origin.port(), "/data.bin");
            // the origin's certificate is public: any TLS client is shown it
            X509Certificate originCertificate;
            try (ControlChannel c = ControlChannel.connect("127.0.0.1", origin.port(),
                    PinnedTrustManager.of(Set.of(origin.server().fingerprint())), Duration.ofSeconds(10))) {
                originCertificate = c.peerCertificate();
            }
            Path sealed = dir.resolve("carry/forged.sealed");
            Files.createDirectories(sealed.getParent());
            Path bag = dir.resolve("archive/bag");
            Files.createDirectories(bag.getParent());
            List<Path> before = everything(dir.resolve("archive"));
            // the attacker's own evacuation, signed by the attacker's own server
            try (RecordedFret theirs = RecordedFret.of(attacker, "/data.bin", "block-size=64k", "retain=1h")) {
                List<Announcement> lines = theirs.announcements();
                OriginSignature theirSignature = theirs.signature();
                assertNotNull(theirSignature, "an evacuation's lines are signed");
                X509Certificate theirCertificate = certificate(attacker);
                Instant now = Instant.now();
                record Forgery(String what, X509Certificate certificate, OriginSignature signature, String refusal) {
                }
                for (Forgery f : List.of(
                        new Forgery("the origin's certificate, no signature", originCertificate, null,
                                "the origin did not sign it"),
                        new Forgery("the origin's certificate, the attacker's signature", originCertificate, theirSignature,
                                "the origin's signature does not match its announcements, account and path"),
                        new Forgery("the attacker's certificate and signature", theirCertificate, theirSignature,
                                "the origin's certificate is " + attacker.server().fingerprint() + ", not the trusted " + trusted))) {
                    new EvacuationManifest(originUrl, f.certificate(), now, now.plus(Duration.ofHours(1)), State.COMPLETE,
                            lines, f.signature()).write(sealed, published);
                    Result r = collect(sealed, bag, "--trust-origin", trusted);
                    System.out.println(f.what() + ": " + r); // the refusal as the operator sees it
                    assertEquals(ExitCodes.UNTRUSTED_ORIGIN, r.exit(), f.what() + ": " + r);
                    assertTrue(r.err().contains(f.refusal()) && r.err().contains("nothing written"), f.what() + ": " + r);
                    assertEquals(before, everything(dir.resolve("archive")), f.what() + ": no bag, journal or temporary file");
                }
                // collected anyway only when asked for explicitly, and loudly
                Result unchecked = collect(sealed, dir.resolve("unchecked"), "--no-origin-check", "-q");
                assertEquals(ExitCodes.OK, unchecked.exit(), unchecked.toString());
                assertTrue(unchecked.err().contains("WARNING: --no-origin-check") && unchecked.err().contains("NOT CHECKED"),
                        unchecked.toString());
            }

            // the genuine evacuation, by fsp evacuate as a process, collects with the origin gone
            Path manifest = dir.resolve("carry/evacuation.sealed");
            ProcessBuilder pb = FspCommand.process(List.of("evacuate", originUrl.toString(), "--trust", trusted,
                    "--manifest", manifest.toString(), "--recipient", recipient.toString(), "--retain", "1h",
                    "--block-size", "64k")).redirectOutput(dir.resolve("evacuate.out").toFile())
                    .redirectError(dir.resolve("evacuate.err").toFile());
            pb.environment().put("FSP_PASSWORD", StripeRig.PASSWORD);
            Process p = pb.start();
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "fsp evacuate did not end");
            assertEquals(ExitCodes.OK, p.exitValue(), Files.readString(dir.resolve("evacuate.err")));
            origin.server().close();
            Result r = collect(manifest, bag, "--trust-origin", trusted);
            assertEquals(ExitCodes.OK, r.exit(), r.toString());
            assertFalse(r.err().contains("WARNING"), r.toString());
            assertEquals(TreeDigests.sha256(genuine), TreeDigests.sha256(bag.resolve("data/data.bin")));
        }
    }

    /** A server configured with an RSA certificate signs as well; the collect verifies it. */
    @Test
    void anOriginWithAnRsaKeySignsItsEvacuations() throws Exception {
        try (StripeRig origin = StripeRig.start(dir.resolve("origin"), rsa(), 64L << 20, HONEST)) {
            Path genuine = origin.root().resolve("data.bin");
            TreeDigests.random(genuine, 300_000, 3);
            String trusted = origin.server().fingerprint().toString();
            Path manifest = dir.resolve("carry/evacuation.sealed");
            Files.createDirectories(manifest.getParent());
            ProcessBuilder pb = FspCommand.process(List.of("evacuate", "fsp://" + StripeRig.USER + "@127.0.0.1:"
                    + origin.port() + "/data.bin", "--trust", trusted, "--manifest", manifest.toString(), "--recipient",
                    recipient.toString(), "--retain", "1h", "--block-size", "64k", "--replicas", "1"))
                    .redirectOutput(dir.resolve("evacuate.out").toFile()).redirectError(dir.resolve("evacuate.err").toFile());
            pb.environment().put("FSP_PASSWORD", StripeRig.PASSWORD);
            Process p = pb.start();
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "fsp evacuate did not end");
            assertEquals(ExitCodes.OK, p.exitValue(), Files.readString(dir.resolve("evacuate.err")));
            EvacuationManifest m = EvacuationManifest.read(manifest, RecipientKey.readIdentity(identity));
            assertEquals("RSA", m.originCertificate().getPublicKey().getAlgorithm());
            origin.server().close();
            Path bag = dir.resolve("archive");
            Result r = collect(manifest, bag, "--trust-origin", trusted);
            assertEquals(ExitCodes.OK, r.exit(), r.toString());
            assertEquals(TreeDigests.sha256(genuine), TreeDigests.sha256(bag.resolve("data/data.bin")));
        }
    }

    private static KeyMaterial rsa() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        KeyPair keys = g.generateKeyPair();
        X500Name name = new X500Name("CN=fsp-server");
        Instant now = Instant.now();
        X509Certificate c = new JcaX509CertificateConverter().getCertificate(new JcaX509v3CertificateBuilder(name,
                BigInteger.TWO, Date.from(now.minusSeconds(60)), Date.from(now.plusSeconds(3600)), name, keys.getPublic())
                .build(new JcaContentSignerBuilder("SHA256withRSA").build(keys.getPrivate())));
        return new KeyMaterial(keys.getPrivate(), List.of(c));
    }

    @Test
    void aFileNameThatLeavesTheBagIsRefusedBeforeAnyFileIsCreated() throws Exception {
        try (StripeRig attacker = StripeRig.start(dir.resolve("attacker"), 64L << 20, HONEST)) {
            TreeDigests.random(attacker.root().resolve("data.bin"), 200_000, 7);
            try (RecordedFret theirs = RecordedFret.of(attacker, "/data.bin", "block-size=64k")) {
                Path out = Files.createDirectories(dir.resolve("out"));
                Path bag = out.resolve("site/bag");
                Instant now = Instant.now();
                String text = new EvacuationManifest(new FspUrl(StripeRig.USER, "127.0.0.1", attacker.port(), "/data.bin"),
                        certificate(attacker), now, now, State.COMPLETE, theirs.announcements(), null).toText();
                assertTrue(text.contains(" data.bin\n"), text);
                for (String name : List.of("../../escaped.bin", "..", "sub/name.bin")) {
                    // written as the attacker would, past the manifest class's own checks
                    String renamed = text.replace(" data.bin\n", " " + name.replace("/", "%2F") + "\n");
                    Path sealed = dir.resolve("renamed.sealed");
                    Files.write(sealed, SealedBox.seal(renamed.getBytes(StandardCharsets.UTF_8), published,
                            EvacuationManifest.PURPOSE));
                    // without the origin check, so that the name alone is what refuses it
                    Result r = collect(sealed, bag, "--no-origin-check");
                    System.out.println(name + ": " + r);
                    assertEquals(ExitCodes.FAILURE, r.exit(), name + ": " + r);
                    assertTrue(r.err().contains("FILE name \"" + name + "\""), name + ": " + r);
                    assertEquals(List.of(out), everything(out), name + ": nothing created, inside the bag or beside it");
                }
            }
        }
    }

    /** {@code fsp evacuate URL} as a process, as {@code user}; its exit code, the manifest at {@code manifest}. */
    private int evacuate(String url, String password, String trusted, Path manifest) throws Exception {
        Files.createDirectories(manifest.getParent());
        Path log = manifest.resolveSibling(manifest.getFileName() + ".err");
        ProcessBuilder pb = FspCommand.process(List.of("evacuate", url, "--trust", trusted, "--manifest",
                manifest.toString(), "--recipient", recipient.toString(), "--retain", "1h", "--block-size", "64k",
                "--replicas", "1")).redirectOutput(manifest.resolveSibling(manifest.getFileName() + ".out").toFile())
                .redirectError(log.toFile());
        pb.environment().put("FSP_PASSWORD", password);
        Process p = pb.start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "fsp evacuate did not end");
        assertEquals(ExitCodes.OK, p.exitValue(), Files.readString(log));
        return p.exitValue();
    }

    /**
     * Two retain-users of one origin: mallory hands the safe site his own evacuation, of his own file, signed by the
     * origin for him. {@code --trust-origin} alone takes it (the origin did sign it); {@code --expect-origin} for
     * alice's evacuation refuses it with exit 6, nothing written. Then alice's own older evacuation of the same path,
     * replayed: refused with {@code --not-before} or {@code --transfer}; the newer one collects.
     */
    @Test
    void anotherUsersOrAnOlderEvacuationIsNotTheOneExpected() throws Exception {
        Map<String, List<String>> users = Map.of(
                "user", List.of(StripeRig.USER + ":" + StripeRig.PASSWORD, "mallory:mallory-pw"),
                "retain-user", List.of(StripeRig.USER + "=30d", "mallory=30d"));
        try (StripeRig origin = StripeRig.start(dir.resolve("origin"), 64L << 20, c -> c, users, HONEST, HONEST)) {
            String trusted = origin.server().fingerprint().toString();
            String base = "127.0.0.1:" + origin.port();
            String alices = "fsp://" + StripeRig.USER + "@" + base + "/data.bin";
            Path data = origin.root().resolve("data.bin");
            TreeDigests.random(data, 300_000, 1);
            String oldDigest = TreeDigests.sha256(data);
            TreeDigests.random(origin.root().resolve("mallory.bin"), 200_000, 7);
            Path older = dir.resolve("carry/older.sealed");
            evacuate(alices, StripeRig.PASSWORD, trusted, older);
            Path his = dir.resolve("carry/mallory.sealed");
            evacuate("fsp://mallory@" + base + "/mallory.bin", "mallory-pw", trusted, his);
            Thread.sleep(1100); // the next evacuation is created a second later at least
            TreeDigests.random(data, 300_000, 2);
            Path newer = dir.resolve("carry/newer.sealed");
            evacuate(alices, StripeRig.PASSWORD, trusted, newer);
            EvacuationManifest latest = EvacuationManifest.read(newer, RecipientKey.readIdentity(identity));
            EvacuationManifest first = EvacuationManifest.read(older, RecipientKey.readIdentity(identity));
            assertTrue(first.created().isBefore(latest.created()), first.created() + " " + latest.created());
            String id = ((Announcement.Transfer) latest.announcements().get(0)).id().toString();
            origin.server().close(); // the collect never needs it

            Path archive = Files.createDirectories(dir.resolve("archive"));
            Path bag = archive.resolve("bag");
            // the hole --expect-origin closes: the origin did sign mallory's evacuation
            Result taken = collect(his, dir.resolve("unexpected"), "--trust-origin", trusted, "-q");
            assertEquals(ExitCodes.OK, taken.exit(), taken.toString());
            record Refusal(String what, Path manifest, List<String> options, String reason) {
            }
            for (Refusal f : List.of(
                    new Refusal("another user's evacuation", his, List.of("--expect-origin", alices),
                            "it is the evacuation of fsp://mallory@" + base + "/mallory.bin, not of the expected " + alices),
                    new Refusal("an older evacuation, --not-before", older, List.of("--expect-origin", alices,
                            "--not-before", latest.created().toString()), "before " + latest.created() + " (--not-before)"),
                    new Refusal("an older evacuation, --transfer", older, List.of("--expect-origin", alices,
                            "--transfer", id), "not the expected " + id + " (--transfer)"))) {
                List<String> args = new java.util.ArrayList<>(List.of("--trust-origin", trusted));
                args.addAll(f.options());
                Result r = collect(f.manifest(), bag, args.toArray(String[]::new));
                System.out.println(f.what() + ": " + r);
                assertEquals(ExitCodes.UNTRUSTED_ORIGIN, r.exit(), f.what() + ": " + r);
                assertTrue(r.err().contains(f.reason()) && r.err().contains("(--expect-origin); nothing written"),
                        f.what() + ": " + r);
                assertEquals(List.of(archive), everything(archive), f.what() + ": no bag, journal or temporary file");
            }
            Result r = collect(newer, bag, "--trust-origin", trusted, "--expect-origin", alices, "--not-before",
                    latest.created().toString(), "--transfer", id);
            assertEquals(ExitCodes.OK, r.exit(), r.toString());
            assertEquals(TreeDigests.sha256(data), TreeDigests.sha256(bag.resolve("data/data.bin")));
            assertFalse(TreeDigests.sha256(data).equals(oldDigest), "the newer data");
        }
    }

    /**
     * A genuine manifest whose created, retain-until or state was edited (opened with the safe site's identity,
     * sealed again with its public key): the origin's signature covers them, exit 6, nothing written.
     */
    @Test
    void aManifestWhoseCreatedRetainUntilOrStateWasEditedIsRefused() throws Exception {
        try (StripeRig origin = StripeRig.start(dir.resolve("origin"), 64L << 20, HONEST)) {
            String trusted = origin.server().fingerprint().toString();
            TreeDigests.random(origin.root().resolve("data.bin"), 200_000, 5);
            Path genuine = dir.resolve("carry/evacuation.sealed");
            evacuate("fsp://" + StripeRig.USER + "@127.0.0.1:" + origin.port() + "/data.bin", StripeRig.PASSWORD, trusted,
                    genuine);
            String text = EvacuationManifest.read(genuine, RecipientKey.readIdentity(identity)).toText();
            Matcher created = Pattern.compile("\ncreated (\\S+)\n").matcher(text);
            Matcher until = Pattern.compile("\nretain-until (\\S+)\n").matcher(text);
            assertTrue(created.find() && until.find() && text.contains("\nstate complete\norigin-signature complete "), text);
            Instant later = Instant.parse(created.group(1)).plus(Duration.ofDays(1));
            Instant longer = Instant.parse(until.group(1)).plus(Duration.ofDays(30));
            Path archive = Files.createDirectories(dir.resolve("archive"));
            Path sealed = dir.resolve("carry/edited.sealed");
            String mismatch = "the origin's signature does not match its announcements, account and path, created,"
                    + " retain-until and state";
            Map<String, String> edits = new java.util.LinkedHashMap<>();
            edits.put(text.replace("\ncreated " + created.group(1) + "\n", "\ncreated " + later + "\n"), mismatch);
            edits.put(text.replace("\nretain-until " + until.group(1) + "\n", "\nretain-until " + longer + "\n"), mismatch);
            edits.put(text.replace("\nstate complete\norigin-signature complete ", "\nstate running\norigin-signature running "),
                    mismatch);
            edits.put(text.replace("\nstate complete\n", "\nstate partial\n"),
                    "the manifest says state partial, the origin signed complete");
            for (Map.Entry<String, String> e : edits.entrySet()) {
                assertFalse(e.getKey().equals(text));
                Files.write(sealed, SealedBox.seal(e.getKey().getBytes(StandardCharsets.UTF_8), published,
                        EvacuationManifest.PURPOSE));
                Result r = collect(sealed, archive.resolve("bag"), "--trust-origin", trusted);
                assertEquals(ExitCodes.UNTRUSTED_ORIGIN, r.exit(), r.toString());
                assertTrue(r.err().contains(e.getValue()) && r.err().contains("nothing written"), r.toString());
                assertEquals(List.of(archive), everything(archive), "no bag, journal or temporary file");
            }
            Result r = collect(genuine, archive.resolve("bag"), "--trust-origin", trusted);
            assertEquals(ExitCodes.OK, r.exit(), r.toString());
        }
    }

    /**
     * {@code fsp collect} as a process with a small heap, handed a sealed manifest it could not hold in memory:
     * refused before it is read, with the reason and what to do, nothing written (it ran out of memory before).
     */
    @Test
    void aManifestTooLargeForTheCollectorsMemoryIsRefusedBeforeItIsRead() throws Exception {
        Path sealed = dir.resolve("carry/large.sealed");
        Files.createDirectories(sealed.getParent());
        byte[] text = ("fsp-evacuation-manifest 3\n" + "x".repeat(24 << 20)).getBytes(StandardCharsets.UTF_8);
        Files.write(sealed, SealedBox.seal(text, published, EvacuationManifest.PURPOSE));
        Path archive = Files.createDirectories(dir.resolve("archive"));
        ProcessBuilder pb = FspCommand.inProcess(List.of("collect", sealed.toString(), "-o", archive.resolve("bag").toString(),
                "--identity", identity.toString(), "--no-origin-check"));
        pb.command().add(1, "-Xmx64m");
        pb.environment().put("FSP_CONFIG", "none");
        Path err = dir.resolve("collect.err");
        Process p = pb.redirectOutput(dir.resolve("collect.out").toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "fsp collect did not end");
        String message = Files.readString(err);
        System.out.println(message);
        assertEquals(ExitCodes.FAILURE, p.exitValue(), message);
        assertTrue(message.contains(sealed + ": " + Files.size(sealed) + " bytes, which take about")
                && message.contains("MiB of memory to read; this JVM may use"), message);
        assertEquals(List.of(archive), everything(archive), "nothing written");
    }

    private static X509Certificate certificate(StripeRig rig) throws Exception {
        try (ControlChannel c = ControlChannel.connect("127.0.0.1", rig.port(),
                PinnedTrustManager.of(Set.of(rig.server().fingerprint())), Duration.ofSeconds(10))) {
            return c.peerCertificate();
        }
    }
}
