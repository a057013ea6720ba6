// Package portfolio owns the backup-market dispatch across the members of
// a pool: which member cannot deliver which awarded obligation (FCR, aFRR
// pos, aFRR neg) right now, and which other members cover it, cheapest
// backup price first within their backup caps, their prequalified
// capacity and their free power and energy. What cannot be covered is a
// penalty-bearing shortfall. Every decision is recorded as cover steps
// per quarter-hour (who failed, who covered, MW, from when to when, at
// which price): the control loop executes the steps in force and
// settlement prices them.
//
// The rules (Condition, Assess, Plan, Diff) are plain Go with no HTTP and
// no SQL; Planner is the background job that gathers their inputs each
// minute and writes the steps through Store. See docs/portfolio.md.
package portfolio
