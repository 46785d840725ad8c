import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collections;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * Rewrites the signed jars of a launcher's class path (target/lib) without their signature files, at build time.
 *
 * <p>A new JVM checks the signature of every signed jar it loads a class from (it hashes the jar's manifest and
 * each class it reads), and class-data sharing leaves the classes of signed jars out of its archive, so they
 * are parsed and verified again at every start. Bouncy Castle, ACCP and Conscrypt are signed: a new `fsp get`
 * spent about 0.25 CPU s of its start on them. The jars come from Maven Central, whose checksums Maven checks
 * when it fetches them; at run time the signatures prove nothing a local attacker could not also rewrite.
 *
 * <p>Run by Maven (exec-maven-plugin) as a single-file program: {@code java build/UnsignJars.java DIR}. Entries
 * are copied unchanged, stored ones stored; jars without signatures are left alone, so a second run is a no-op.
 */
public final class UnsignJars {
    /** Signature files (JAR File Specification, "Signed JAR File"): the .SF and its signature block. */
    private static final Pattern SIGNATURE = Pattern.compile("META-INF/[^/]+\\.(SF|RSA|DSA|EC)|META-INF/SIG-[^/]+");

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: java UnsignJars.java DIR");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        if (!Files.isDirectory(dir)) {
            return; // a module without a launcher's class path
        }
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(dir, "*.jar")) {
            for (Path jar : jars) {
                unsign(jar);
            }
        }
    }

    /** Rewrites {@code jar} without its signature files; false if it had none. */
    private static boolean unsign(Path jar) throws IOException {
        Path copy = jar.resolveSibling(jar.getFileName() + ".unsigning");
        try (ZipFile in = new ZipFile(jar.toFile())) {
            if (in.stream().noneMatch(e -> SIGNATURE.matcher(e.getName()).matches())) {
                return false;
            }
            try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(copy))) {
                for (ZipEntry e : Collections.list(in.entries())) {
                    if (SIGNATURE.matcher(e.getName()).matches()) {
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
