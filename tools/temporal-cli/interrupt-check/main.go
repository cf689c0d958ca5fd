// Checks the SQLite driver the Temporal CLI is built with, as the dev server uses it: one
// connection, queries cut off by their deadlines while others wait. After such a storm, plain
// reads on the same connection must answer. Prints what failed, during the storm and after it,
// and exits 1 if any read after it failed.
package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"time"

	_ "modernc.org/sqlite"
)

const (
	goroutines  = 16
	queriesEach = 400
	readsAfter  = 200
	slowQuery   = "with recursive c(x) as (select 1 union all select x + 1 from c where x < 20000) select 'n' || count(*) from c"
	plainQuery  = "select name from namespaces where id = 1"
)

func main() {
	dir, err := os.MkdirTemp("", "interrupt-check")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "check.sqlite")+"?_pragma=journal_mode(wal)")
	if err != nil {
		panic(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("create table namespaces (id integer primary key, name text); insert into namespaces (name) values ('default')"); err != nil {
		panic(err)
	}

	storm := failures{}
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			random := rand.New(rand.NewSource(seed))
			for i := 0; i < queriesEach; i++ {
				deadline := time.Duration(random.Intn(400)) * time.Microsecond
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				query := plainQuery
				if random.Intn(4) == 0 {
					query = slowQuery
				}
				var answer string
				storm.add(db.QueryRowContext(ctx, query).Scan(&answer))
				cancel()
			}
		}(int64(g))
	}
	wg.Wait()

	after := failures{}
	for i := 0; i < readsAfter; i++ {
		var name string
		err := db.QueryRow(plainQuery).Scan(&name)
		if err == nil && name != "default" {
			err = fmt.Errorf("read %q", name)
		}
		after.add(err)
	}
	fmt.Printf("storm: %d queries, failed: %v\n", goroutines*queriesEach, storm.counts)
	fmt.Printf("after: %d plain reads, failed: %v\n", readsAfter, after.counts)
	if len(after.counts) > 0 {
		os.Exit(1)
	}
}

type failures struct {
	mu     sync.Mutex
	counts map[string]int
}

func (f *failures) add(err error) {
	if err == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.counts == nil {
		f.counts = map[string]int{}
	}
	f.counts[err.Error()]++
}
