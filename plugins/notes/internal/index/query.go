package index

import (
	"context"
	"database/sql"
	"fmt"
)

// queryAll runs q with args and reads each row into a T with scan; op
// names the query in the errors ("index: OP: ...").
func queryAll[T any](ctx context.Context, db *sql.DB, op, q string, args []any, scan func(scanner) (T, error)) ([]T, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("index: %s: %w", op, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("index: %s: %w", op, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("index: %s: %w", op, err)
	}
	return out, nil
}
