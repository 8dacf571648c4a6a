"""The suite's shared fixtures live in tests/support and load here as plugins, so no test
imports a fixture by name; helpers are imported from tests.support modules."""

pytest_plugins = [
    "tests.support.fixtures",
    "tests.support.studio",
    "tests.support.timeline_view",
    "tests.support.rehearse",
    "tests.support.serve",
    "tests.support.session",
    "tests.support.sample_clips",
    "tests.support.ordering",
]
