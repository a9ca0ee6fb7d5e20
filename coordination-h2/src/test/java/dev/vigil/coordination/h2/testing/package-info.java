/**
 * Test kit for stores on H2, published in this module's test-jar: {@link
 * dev.vigil.coordination.h2.testing.FaultyFileSystem} fails writes on demand as a full or failing disk does.
 */
package dev.vigil.coordination.h2.testing;
