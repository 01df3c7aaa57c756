" Vim syntax file for the .gnn language (gnnc).
" The same classes as tools/editor/gnn.tmLanguage.json: declarations,
" keywords, types, builtin functions and names, train-setting keys, numbers,
" strings and comments. Install: copy tools/editor/vim into ~/.vim (or add it
" to 'runtimepath').
if exists("b:current_syntax")
  finish
endif

syn keyword gnnDeclaration layer model dataset train param nextgroup=gnnDeclName skipwhite
syn match   gnnDeclName    "\<[A-Za-z_][A-Za-z0-9_]*\>" contained
syn keyword gnnFunction    forward
syn keyword gnnInclude     import
syn keyword gnnKeyword     return on every node relation
" `every 10 epochs`; before gnnSetting, which wins for `epochs = 200`.
syn match   gnnKeyword     "\<epochs\>"
syn keyword gnnBoolean     true false
syn keyword gnnType        int float bool string graph reduce
" Builtin functions, highlighted where they are called.
syn match   gnnBuiltin     "\<\(aggregate_relation_rows\|aggregate_relations\|aggregate\|gather\|scatter\|edge_softmax\|degree\|dst\|relation\|node_type\|relu\|sigmoid\|tanh\|exp\|log\|sqrt\|rsqrt\|abs\|leaky_relu\|elu\|softmax\|log_softmax\|dropout\|concat\|reshape\|block_diagonal\|sum\|mean\|max\|uniform\|normal\|constant\|ogb\|npy\|generate\|metis\|random\|frequency\|neighbor\|adam\|adamw\|sgd\)\ze\s*("
" Builtin names that stand for themselves (reductions, sides, splits...).
syn keyword gnnConstant    sum mean max min src dst zeros ones glorot kaiming
syn keyword gnnConstant    valid test nodes edges full_graph cross_entropy
syn keyword gnnConstant    one_shot sequential sequential_remat sbm rmat
" Train-setting keys, before their '='.
syn match   gnnSetting     "\<\(partition\|batches\|loss\|optimizer\|epochs\|evaluate\|checkpoint\|seed\|aggregation\|comm_timeout\|samplers\|offload\|memory_budget\)\ze\s*="
syn match   gnnNumber      "\<\d\+\(\.\d*\)\=\([eE][+-]\=\d\+\)\=\>"
syn match   gnnNumber      "\.\d\+\([eE][+-]\=\d\+\)\=\>"
syn match   gnnOperator    "->\|@\|[-+*/=]"
syn region  gnnString      start=+"+ skip=+\\.+ end=+"+ end=+$+ oneline
syn keyword gnnTodo        TODO FIXME XXX contained
syn match   gnnComment     "//.*$" contains=gnnTodo
syn region  gnnComment     start="/\*" end="\*/" contains=gnnTodo

hi def link gnnDeclaration Keyword
hi def link gnnDeclName    Type
hi def link gnnFunction    Function
hi def link gnnInclude     Include
hi def link gnnKeyword     Keyword
hi def link gnnBoolean     Boolean
hi def link gnnType        Type
hi def link gnnBuiltin     Function
hi def link gnnConstant    Constant
hi def link gnnSetting     Identifier
hi def link gnnNumber      Number
hi def link gnnOperator    Operator
hi def link gnnString      String
hi def link gnnTodo        Todo
hi def link gnnComment     Comment

let b:current_syntax = "gnn"
