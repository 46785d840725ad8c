package io.fsp.relay;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import io.fsp.relay.store.BlockStore;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The relay's packages form no cycle, read from this module's compiled classes (the rule of every module;
 * fsp-common's {@code PackageCycleRuleTest} shows that it catches a cycle), and the store knows nothing of the
 * protocol: the network layer says the store's refusals in the protocol's words.
 */
class PackageDependenciesTest {
    static final ArchRule STORE_APART = noClasses().that().resideInAPackage("io.fsp.relay.store..")
            .should().dependOnClassesThat().resideInAnyPackage("io.fsp.relaylink..", "io.fsp.relay.net..")
            .because("the store holds blocks; frames, error codes and connections are the network layer's");

    private static JavaClasses classes;

    @BeforeAll
    static void read() {
        classes = new ClassFileImporter().importPath(Path.of("target/classes"));
        assertTrue(classes.contain(BlockStore.class) && classes.contain(FspRelay.class), "the module's classes were read");
    }

    @Test
    void packagesFormNoCycle() {
        slices().matching("io.fsp.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void storeUsesNoWireNorNet() {
        STORE_APART.check(classes);
    }
}
