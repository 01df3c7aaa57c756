" Vim syntax file for the .gnn language (gnnc).
" The same classes as tools/editor/gnn.tmLanguage.json: declarations,
" keywords, types, builtin functions and names, train-setting keys, numbers,
" strings and comments. In a train block a name before '=' is a setting and
" a called name a builtin, whatever their names (TrainSettings.def). Install: copy tools/editor/vim into ~/.vim (or add it
" to 'runtimepath').
if exists("b:current_syntax")
  finish
endif

syn keyword gnnDeclaration layer model dataset param nextgroup=gnnDeclName skipwhite
syn match   gnnDeclName    "\<[A-Za-z_][A-Za-z0-9_]*\>" contained
syn keyword gnnFunction    forward
syn keyword gnnInclude     import
syn keyword gnnKeyword     return on every for node relation
" `every 10 epochs`; before gnnSetting, which wins for `epochs = 200`.
syn match   gnnKeyword     "\<epochs\>"
syn keyword gnnBoolean     true false
syn keyword gnnType        int float bool string graph reduce
" Builtin functions, highlighted where they are called.
syn match   gnnBuiltin     "\<\(aggregate_relation_rows\|aggregate_relations\|aggregate\|gather\|scatter\|edge_softmax\|degree\|dst\|relation\|readout\|pairs\|split\|n3\|l2\|node_type\|relu\|sigmoid\|tanh\|exp\|log\|sqrt\|rsqrt\|abs\|leaky_relu\|elu\|softmax\|log_softmax\|batch_norm\|dropout\|concat\|reshape\|block_diagonal\|sum\|mean\|max\|uniform\|normal\|constant\|ogbg\|ogb\|npy\|kg\|generate\|tu\|metis\|random\|frequency\|neighbor\|graphs\|group\|step\|cosine\|patience\|all\)\ze\s*("
" Builtin names that stand for themselves (reductions, sides, splits...).
syn keyword gnnConstant    sum mean max min src dst zeros ones glorot kaiming
syn keyword gnnConstant    valid test nodes edges full_graph cross_entropy
syn keyword gnnConstant    one_shot sequential sequential_remat sbm rmat
syn match   gnnNumber      "\<\d\+\(\.\d*\)\=\([eE][+-]\=\d\+\)\=\>"
syn match   gnnNumber      "\.\d\+\([eE][+-]\=\d\+\)\=\>"
syn match   gnnOperator    "->\|@\|[-+*/=]"
syn region  gnnString      start=+"+ skip=+\\.+ end=+"+ end=+$+ oneline
" `train M(args) on D { key = value ... }`: keys are the names before '='
" outside parentheses, calls are builtins (optimizers, partitioners). After
" gnnKeyword, so that `epochs = 200` is a setting.
syn region  gnnTrainBlock  matchgroup=gnnDeclaration start="\<train\>\ze\s\+\h" end="}" contains=gnnTrainName,gnnTrainArgs,gnnSetting,gnnBuiltin,gnnTrainSplit,gnnComment,gnnString,gnnNumber,gnnKeyword,gnnConstant,gnnBoolean,gnnOperator
syn region  gnnTrainArgs   start="(" end=")" contained transparent contains=gnnTrainArgs,gnnBuiltin,gnnTrainSplit,gnnComment,gnnString,gnnNumber,gnnKeyword,gnnConstant,gnnBoolean,gnnOperator
syn match   gnnTrainSplit  "\<train\>" contained
syn match   gnnSetting     "\<\h\w*\ze\s*=" contained
syn match   gnnBuiltin     "\<\h\w*\ze\s*(" contained
" The model after `train`, called or not (defined last: it wins over a call).
syn match   gnnTrainName   "\%(\<train\s\+\)\@<=\h\w*" contained
syn keyword gnnTodo        TODO FIXME XXX contained
syn match   gnnComment     "//.*$" contains=gnnTodo
syn region  gnnComment     start="/\*" end="\*/" contains=gnnTodo

" A train block spans lines: find where one starts from the file's top
" (.gnn files are small).
syn sync fromstart

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
hi def link gnnTrainName   Type
hi def link gnnTrainSplit  Constant
hi def link gnnNumber      Number
hi def link gnnOperator    Operator
hi def link gnnString      String
hi def link gnnTodo        Todo
hi def link gnnComment     Comment

let b:current_syntax = "gnn"
