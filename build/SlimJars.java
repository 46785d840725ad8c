import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collections;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * Rewrites the jars of a launcher's class path (target/lib) at build time: without signature files, and without the
 * native libraries that the build unpacked beside them (target/native, on {@code java.library.path}).
 *
 * <p>A new JVM checks the signature of every signed jar it loads a class from (it hashes the jar's manifest and
 * each class it reads), and class-data sharing leaves the classes of signed jars out of its archive, so they
 * are parsed and verified again at every start. Bouncy Castle, ACCP and Conscrypt are signed: a new `fsp get`
 * spent about 0.25 CPU s of its start on them. The jars come from Maven Central, whose checksums Maven checks
 * when it fetches them; at run time the signatures prove nothing a local attacker could not also rewrite.
 *
 * <p>Conscrypt loads its library by copying it from its jar into a temporary file at every start (2.4 MB written,
 * loaded, deleted) whenever the jar holds it; only a jar without it sends Conscrypt to {@code java.library.path}.
 * Netty's BoringSSL and ACCP look there first, so their copies in the jars are dead weight once unpacked.
 *
 * <p>Run by Maven (exec-maven-plugin) as a single-file program: {@code java build/SlimJars.java LIB [NATIVE]}.
 * Entries are copied unchanged, stored ones stored; jars with nothing to drop are left alone, so a second run is a
 * no-op.
 */
public final class SlimJars {
    /** Signature files (JAR File Specification, "Signed JAR File"): the .SF and its signature block. */
    private static final Pattern SIGNATURE = Pattern.compile("META-INF/[^/]+\\.(SF|RSA|DSA|EC)|META-INF/SIG-[^/]+");

    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: java SlimJars.java LIB [NATIVE]");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        if (!Files.isDirectory(dir)) {
            return; // a module without a launcher's class path
        }
        Path unpacked = args.length == 2 ? Path.of(args[1]) : null;
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(dir, "*.jar")) {
            for (Path jar : jars) {
                slim(jar, name -> SIGNATURE.matcher(name).matches()
                        || unpacked != null && !name.endsWith("/") && Files.isRegularFile(unpacked.resolve(name)));
            }
        }
    }

    /** Rewrites {@code jar} without the entries {@code drop} names; false if it had none. */
    private static boolean slim(Path jar, Predicate<String> drop) throws IOException {
        Path copy = jar.resolveSibling(jar.getFileName() + ".slimming");
        try (ZipFile in = new ZipFile(jar.toFile())) {
            if (in.stream().noneMatch(e -> drop.test(e.getName()))) {
                return false;
            }
            try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(copy))) {
                for (ZipEntry e : Collections.list(in.entries())) {
                    if (drop.test(e.getName())) {
                        continue;
                    }
                    ZipEntry kept = new ZipEntry(e.getName());
                    kept.setTime(e.getTime());
                    kept.setMethod(e.getMethod());
                    if (e.getMethod() == ZipEntry.STORED) {
                        kept.setSize(e.getSize());
                        kept.setCompressedSize(e.getSize());
                        kept.setCrc(e.getCrc());
                    }
                    out.putNextEntry(kept);
                    try (InputStream data = in.getInputStream(e)) {
                        data.transferTo(out);
                    }
                    out.closeEntry();
                }
            }
        }
        Files.move(copy, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return true;
    }
}
