package rules

import (
	"os"
	"runtime"
	"runtime/pprof"
)

func tmpHeapProfile() {
	p := os.Getenv("VMEM_HEAP")
	if p == "" {
		return
	}
	runtime.GC()
	f, _ := os.Create(p)
	pprof.Lookup("heap").WriteTo(f, 0)
	f.Close()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	println("heapalloc", ms.HeapAlloc>>20, "heapinuse", ms.HeapInuse>>20, "sys", ms.Sys>>20, "ids", ms.HeapObjects)
}
