/** A test kit for custom worker types: {@link dev.vigil.worker.testing.FakeWorkContext} runs a type in a unit test, with the test playing the daemon. */
package dev.vigil.worker.testing;
