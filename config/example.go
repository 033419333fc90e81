package config

// Example is the commented file `coplay config init` writes. It parses cleanly (a
// test checks), so a person can start from it and uncomment what they need.
const Example = `# coplay configuration (coplay config check validates this file).
# Flags on the command line beat this file; this file beats the built-in defaults.
# Secrets never go here: a profile names the environment variable holding its key.

[defaults]
# game = "universe"          # universe (offline, built in), spacetraders, mcp or openapi
# brain = "autopilot"        # autopilot, model, or script:FILE (a cassette)
# model = "gpt-4o-mini"
# preset = "openai"          # openai, openrouter, ollama, lmstudio, vllm, llamacpp
# base_url = "http://localhost:8000/v1"   # the model endpoint; set preset or base_url
# api_key_env = "OPENAI_API_KEY"          # the variable holding the model's key
approve = "ask"              # ask, or all (calls that change the game run unasked)
# speed = 10                 # offline universe speed factor
# no_rate_limit = false      # turn off the offline universe's rate limit
# allow_plain_http = false   # let a model key go over plain http to another machine (it travels unencrypted)
# profile = "looker/fast"    # the profile used when --profile is not given
# rules = ["allow orbit_ship", "deny jettison_cargo: keep the cargo"]  # approval rules for every session
# max_run_tokens = 2000000   # --max-tokens: the run stops once it has used this many tokens
# max_run_cost = 1.50        # --max-cost: the run stops once it has spent this many dollars
# tool_budget = 12000        # --tool-budget: characters of tool definitions sent per model request
# pin = ["navigate_ship"]    # --pin: tools always sent whole, whatever the budget
# call_timeout = 60          # --call-timeout: seconds a game call may run before it is cancelled

# Prices in dollars per million tokens, for the cost in reports. A model without a
# price is reported as "cost unknown", never $0. cached_prompt is the price of prompt
# tokens the provider serves from its prompt cache; without it they count at the
# prompt price and the cost is shown as an upper bound ("≤ $0.0123").
[prices."gpt-4o-mini"]
prompt = 0.15
completion = 0.60
cached_prompt = 0.075

# Profiles are ways of playing, named NAME/EXPERIMENT. --profile NAME picks the one
# marked default = true (or the only one, or NAME/default); --profile NAME/EXPERIMENT
# a given one; NAME/EXPERIMENT@VERSION refuses to run if the definition changed
# (coplay config profiles shows each version). "autopilot" is built in, and so are
# autopilot/bold and autopilot/careful: temperament = "bold" or "careful" in an autopilot
# profile of your own (brain = "autopilot"; one of yours replaces the three).
[profiles."looker/fast"]
default = true
brain = "model"
model = "gpt-4o-mini"
preset = "openai"
api_key_env = "OPENAI_API_KEY"
temperature = 0.2
# max_tokens = 1024         # longest answer per model call (max_run_tokens caps the whole run)
max_iterations = 20        # model calls per turn before it stops and asks
# history_steps = 24        # steps kept verbatim in the prompt (when full, three quarters fold at once)
prompt = "Prefer contracts over speculative trading."
# tools = ["observe_game", "navigate_ship"]   # the only tools it may use, or:
# hide_tools = ["jettison_cargo"]               # tools it may not use
# max_run_cost = 0.50       # as in [defaults]: max_run_tokens, max_run_cost, tool_budget, pin, call_timeout
# Approval rules for this profile's sessions (with [defaults] rules): deny beats ask
# beats allow; "if" conditions apply to the call's dry run.
rules = ["deny jettison_cargo: never throw cargo away", "allow orbit_ship", "allow navigate_ship if fuel <= 100"]
# approve = "all"          # this profile's seat in a league (--seat NAME=looker) plays unasked

[profiles."looker/careful"]
brain = "model"
model = "gpt-4o-mini"
preset = "openai"
temperature = 0.0
hide_tools = ["jettison_cargo"]

# A league (--seat NAME=PROFILE, repeated): what holds for every seat, under each seat's
# profile. rules go with [defaults]' and the seat's profile's; approve is every seat's
# policy unless --approve or the seat's profile says otherwise.
# [league]
# rules = ["allow work"]
# approve = "ask"
`
