package agent

// OpenFixture is openFixture, for the package's external tests.
var OpenFixture = openFixture
