"""HR tools: timesheets and payroll."""
