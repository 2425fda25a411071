"""Facts: the plain, picklable records one parse of a module gives, and the indexer."""
