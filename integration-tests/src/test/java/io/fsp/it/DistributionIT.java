package io.fsp.it;

import org.junit.jupiter.api.BeforeAll;

/** The distribution archive ({@code fsp-VERSION.tar.gz}) with a Java runtime on the PATH (checks: the superclass). */
class DistributionIT extends DistributionChecks {

    @BeforeAll
    static void unpack() throws Exception {
        unpack(System.getProperty("fsp.it.distribution"), true);
    }
}
