package rules

// SetCollectorLimits makes CL100 and CL101 keep at most n UUIDs, spans and
// trace_ids in memory, their pending references in blocks of two with one
// block in memory, the paged sets pages pages in memory, and their
// temporary files in dir, for the engine tests of package rules_test; the
// function returned restores the defaults.
func SetCollectorLimits(n, pages int, dir string) (restore func()) {
	old, oldPages := collectorLimits, residentPages
	collectorLimits.uuids, collectorLimits.spans, collectorLimits.strings = n, n, n
	collectorLimits.chunk, collectorLimits.blocks, collectorLimits.dir = 2, 1, dir
	residentPages = pages
	return func() { collectorLimits, residentPages = old, oldPages }
}
