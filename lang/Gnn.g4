// Gnn.g4 — the grammar of the .gnn language.
//
// A program is a sequence of top-level items: imports, dataset declarations, layers,
// models and train blocks. Statements need no separators (an optional ';' is accepted);
// newlines are insignificant. The parse tree is turned into the AST by ASTBuilder.cpp,
// which must tolerate the partial trees ANTLR builds while recovering from syntax errors.
grammar Gnn;

program : item* EOF ;

item
  : importDecl
  | datasetDecl
  | layerDecl
  | modelDecl
  | trainDecl
  ;

// import nn            -- stdlib/nn/*.gnn
// import nn.conv       -- stdlib/nn/conv.gnn
// import "my/layers"   -- my/layers.gnn relative to the importing file
importDecl : IMPORT (qualifiedName | STRING) SEMI? ;
qualifiedName : ID (DOT ID)* ;

// dataset cora = ogb("cora")
// dataset mag = ogb("ogbn-mag") { node paper  node author  relation writes: author -> paper }
datasetDecl : DATASET ID ASSIGN expr datasetBody? SEMI? ;
datasetBody : LBRACE datasetMember* RBRACE ;
datasetMember
  : NODE ID (COMMA ID)* SEMI?                          # nodeTypeDecl
  | RELATION ID COLON ID ARROW ID SEMI?                # relationDecl
  ;

layerDecl : LAYER ID LPAREN paramList? RPAREN LBRACE member* RBRACE ;
modelDecl : MODEL ID LPAREN paramList? RPAREN LBRACE member* RBRACE ;

paramList : formalParam (COMMA formalParam)* COMMA? ;
formalParam : ID (COLON type)? (ASSIGN expr)? ;

member
  : PARAM ID COLON type (ASSIGN expr)? SEMI?           # weightDecl
  | ID ASSIGN expr SEMI?                               # subLayerDecl
  | FORWARD LPAREN paramList? RPAREN (ARROW type)? block  # forwardDecl
  ;

block : LBRACE stmt* RBRACE ;
// `in` stays an identifier (layers name their width `in`): ASTBuilder checks
// the word between the loop variable and its range.
//   for i in range(layers) { h = convs[i](g, h) }
stmt
  : ID (COLON type)? ASSIGN expr SEMI?                 # assignStmt
  | RETURN expr SEMI?                                  # returnStmt
  | FOR ID ID expr block                               # forStmt
  ;

// train GCN(hidden = 64) on cora { optimizer = adam(lr = 0.01)  evaluate = [valid, test] every 10 epochs }
trainDecl : TRAIN ID (LPAREN argList? RPAREN)? ON ID LBRACE trainSetting* RBRACE ;
trainSetting : ID ASSIGN expr (EVERY expr ID?)? SEMI? ;

// int, float, bool, string, graph; tensors list their dimensions: [N, in], [g.dst, heads * out]
type
  : ID                                                 # namedType
  | LBRACK (expr (COMMA expr)*)? RBRACK                # tensorType
  ;

expr
  : expr DOT ID                                        # memberExpr
  | expr LPAREN argList? RPAREN                        # callExpr
  | expr LBRACK expr (COMMA expr)* RBRACK              # indexExpr
  | MINUS expr                                         # negExpr
  | expr op=(STAR | SLASH | AT) expr                   # mulExpr
  | expr op=(PLUS | MINUS) expr                        # addExpr
  | INT                                                # intLiteral
  | FLOAT                                              # floatLiteral
  | STRING                                             # stringLiteral
  | (TRUE | FALSE)                                     # boolLiteral
  | (ID | TRAIN | NODE | RELATION)                      # nameExpr
  | LPAREN expr RPAREN                                 # parenExpr
  | LBRACK expr FOR ID ID expr RBRACK                  # comprehensionExpr
  | LBRACK (expr (COMMA expr)* COMMA?)? RBRACK         # listExpr
  ;

argList : arg (COMMA arg)* COMMA? ;
arg : (ID ASSIGN)? expr ;

// ---- Lexer ----------------------------------------------------------------
IMPORT   : 'import' ;
DATASET  : 'dataset' ;
LAYER    : 'layer' ;
MODEL    : 'model' ;
TRAIN    : 'train' ;
ON       : 'on' ;
PARAM    : 'param' ;
FORWARD  : 'forward' ;
RETURN   : 'return' ;
EVERY    : 'every' ;
FOR      : 'for' ;
NODE     : 'node' ;
RELATION : 'relation' ;
TRUE     : 'true' ;
FALSE    : 'false' ;

ARROW  : '->' ;
ASSIGN : '=' ;
COLON  : ':' ;
SEMI   : ';' ;
COMMA  : ',' ;
DOT    : '.' ;
LPAREN : '(' ;
RPAREN : ')' ;
LBRACK : '[' ;
RBRACK : ']' ;
LBRACE : '{' ;
RBRACE : '}' ;
PLUS   : '+' ;
MINUS  : '-' ;
STAR   : '*' ;
SLASH  : '/' ;
AT     : '@' ;

ID     : [a-zA-Z_] [a-zA-Z_0-9]* ;
FLOAT  : DIGITS '.' DIGITS? EXPONENT? | '.' DIGITS EXPONENT? | DIGITS EXPONENT ;
INT    : DIGITS ;
STRING : '"' (~["\\\r\n] | '\\' ~[\r\n])* '"' ;
fragment DIGITS   : [0-9]+ ;
fragment EXPONENT : [eE] [+-]? DIGITS ;

LINE_COMMENT  : '//' ~[\r\n]* -> channel(HIDDEN) ;
BLOCK_COMMENT : '/*' .*? '*/' -> channel(HIDDEN) ;
WS            : [ \t\r\n]+ -> skip ;

// Anything else becomes a token the parser rejects with a located diagnostic,
// so the lexer itself never fails.
UNTERMINATED_STRING  : '"' (~["\\\r\n] | '\\' ~[\r\n])* ;
// The body cannot contain `*/`, or this rule (the longest match) would swallow
// every well-formed block comment up to the end of the file.
UNTERMINATED_COMMENT : '/*' (~'*' | '*'+ ~[*/])* '*'* EOF ;
ERROR_CHAR           : . ;
