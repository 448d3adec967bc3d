package check

// Tool is the name check verdicts carry.
const Tool = "check"

// referenceName is what a check's reference is, in messages and reports.
const referenceName = "requirement"
